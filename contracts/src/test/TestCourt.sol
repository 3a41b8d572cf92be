// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {IArbitrator} from "../interfaces/IArbitrator.sol";
import {IArbitrable} from "../interfaces/IArbitrable.sol";

/// @notice What the court pulls from a registry that credits it.
interface IWithdrawable {
    function withdraw(address token, uint256 amount) external;
}

/// @title TestCourt
/// @notice A minimal, centralized ERC-792 arbitrator contract: it charges a
/// fixed fee to create a dispute, its owner (the court's operator) hands
/// down rulings, and the owner withdraws what a registry credits the court
/// (the bond of each ruling) and the fees it collected.
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

    /// @notice The owner pulls amount of native ETH that registry owes the
    /// court, then takes everything the court holds (those credits and the
    /// fees it collected).
    function withdrawFrom(address registry, uint256 amount) external {
        require(msg.sender == owner, "owner");
        if (amount > 0) IWithdrawable(registry).withdraw(address(0), amount);
        (bool ok,) = owner.call{value: address(this).balance}("");
        require(ok, "pay");
    }

    /// @notice Receives the registry's payments.
    receive() external payable {}
}
