// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title ReentrantReceiver
/// @notice A contract account (for example an arbitrator) that, when it
/// receives ETH, calls back into a target with chosen calldata and records
/// whether the re-entrant call succeeded.
contract ReentrantReceiver {
    address public immutable owner;
    address public target;
    bytes public payload;
    uint256 public reentries;
    uint256 public reentrySuccesses;

    constructor() {
        owner = msg.sender;
    }

    /// @notice Sets what to call when ETH arrives; an empty target disarms it.
    function arm(address target_, bytes calldata data) external {
        require(msg.sender == owner, "owner");
        target = target_;
        payload = data;
    }

    /// @notice Calls `to` with data and value from this contract (owner only),
    /// bubbling up a revert.
    function exec(address to, bytes calldata data) external payable returns (bytes memory) {
        require(msg.sender == owner, "owner");
        (bool ok, bytes memory ret) = to.call{value: msg.value}(data);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        return ret;
    }

    receive() external payable {
        if (target == address(0) || reentries >= 3) return;
        reentries++;
        (bool ok,) = target.call(payload);
        if (ok) reentrySuccesses++;
    }
}
