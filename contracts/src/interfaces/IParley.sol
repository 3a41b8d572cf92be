// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {DisputeTerms} from "../ParleyTypes.sol";

/// @notice What the ArbitrationModule needs from the TaskRegistry.
interface ITaskRegistrySettlement {
    /// @notice Pays out a disputed task: the worker gets workerBps of the escrow,
    /// the poster the rest, and bondTo the opener's bond. Callable only by the
    /// registry's ArbitrationModule, once per dispute.
    function settleDispute(bytes32 taskId, DisputeTerms calldata terms, uint256 workerBps, address bondTo) external;
}

/// @notice What the TaskRegistry needs from the ArbitrationModule.
interface IArbitrationModuleOpen {
    /// @notice The registry this module serves.
    function registry() external view returns (address);

    /// @notice The bond, in wei, a party posts when it opens a dispute.
    function bond() external view returns (uint256);

    /// @notice Opens the dispute about taskId; callable only by the registry.
    function open(bytes32 taskId, DisputeTerms calldata terms, bytes32 termsHash) external;
}
