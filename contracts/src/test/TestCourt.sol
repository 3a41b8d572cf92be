// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {IArbitrator} from "../interfaces/IArbitrator.sol";
import {IArbitrable} from "../interfaces/IArbitrable.sol";

/// @title TestCourt
/// @notice A minimal ERC-792 arbitrator contract: it charges a fixed fee to
/// create a dispute and its owner hands down rulings.
contract TestCourt is IArbitrator {
    address public immutable owner;
    uint256 public immutable fee;
    address[] public arbitrable;

    constructor(uint256 fee_) {
        owner = msg.sender;
        fee = fee_;
    }

    /// @inheritdoc IArbitrator
    function createDispute(uint256, bytes calldata) external payable returns (uint256 disputeID) {
        require(msg.value == fee, "fee");
        disputeID = arbitrable.length;
        arbitrable.push(msg.sender);
        emit DisputeCreation(disputeID, msg.sender);
    }

    /// @inheritdoc IArbitrator
    function arbitrationCost(bytes calldata) external view returns (uint256) {
        return fee;
    }

    /// @notice The owner rules on one of this court's disputes.
    function giveRuling(uint256 disputeID, uint256 ruling) external {
        require(msg.sender == owner, "owner");
        IArbitrable(arbitrable[disputeID]).rule(disputeID, ruling);
    }
}
