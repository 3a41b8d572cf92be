// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title TestToken
/// @notice A plain ERC-20 anyone can mint, for tests and the dev chain.
contract TestToken is ERC20 {
    constructor() ERC20("Parley Test Token", "PTT") {}

    /// @notice Mints amount to `to`.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
