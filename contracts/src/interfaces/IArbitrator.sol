// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title IArbitrator (ERC-792), the part Parley calls
/// @notice An arbitrator contract: it creates disputes and later calls
/// IArbitrable.rule on the contract that raised them.
interface IArbitrator {
    /// @notice Emitted when a dispute is created.
    event DisputeCreation(uint256 indexed _disputeID, address indexed _arbitrable);

    /// @notice Creates a dispute with `_choices` possible rulings; must be paid arbitrationCost.
    function createDispute(uint256 _choices, bytes calldata _extraData) external payable returns (uint256 disputeID);

    /// @notice Returns the fee createDispute requires.
    function arbitrationCost(bytes calldata _extraData) external view returns (uint256 cost);
}
