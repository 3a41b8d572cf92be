// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title ReentrantToken
/// @notice An ERC-20 that, once armed, calls back into a target with chosen
/// calldata in the middle of its next transfer, and records whether the
/// re-entrant call succeeded. Used to show the registry's guard holds.
contract ReentrantToken is ERC20 {
    address public target;
    bytes public payload;
    bool public attempted;
    bool public reentered;
    bytes public reentryResult;

    constructor() ERC20("Reentrant Token", "RNT") {}

    /// @notice Mints amount to `to`.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice Arms the token: its next transfer calls target with data.
    function arm(address target_, bytes calldata data) external {
        target = target_;
        payload = data;
        attempted = false;
        reentered = false;
    }

    function _update(address from, address to, uint256 value) internal override {
        super._update(from, to, value);
        if (target != address(0) && !attempted && from != address(0)) {
            attempted = true;
            (bool ok, bytes memory ret) = target.call(payload);
            reentered = ok;
            reentryResult = ret;
        }
    }
}
