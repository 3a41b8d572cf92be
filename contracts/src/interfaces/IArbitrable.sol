// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {IArbitrator} from "./IArbitrator.sol";

/// @title IArbitrable (ERC-792)
/// @notice A contract whose disputes an arbitrator rules on.
interface IArbitrable {
    /// @notice Emitted when a ruling is given.
    event Ruling(IArbitrator indexed _arbitrator, uint256 indexed _disputeID, uint256 _ruling);

    /// @notice Gives a ruling for a dispute; callable only by the dispute's arbitrator.
    /// @param _disputeID the dispute's identifier in the arbitrator's numbering.
    /// @param _ruling 0 means "refused to rule"; other values as the arbitrable defines.
    function rule(uint256 _disputeID, uint256 _ruling) external;
}
