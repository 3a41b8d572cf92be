// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {IArbitrator} from "./IArbitrator.sol";

/// @title IEvidence (ERC-1497)
/// @notice Events that tie a dispute to the agreement it is about (MetaEvidence)
/// and to the evidence the parties submit.
interface IEvidence {
    /// @notice Emitted when the meta-evidence of an agreement is fixed.
    event MetaEvidence(uint256 indexed _metaEvidenceID, string _evidence);

    /// @notice Emitted when a party submits evidence.
    event Evidence(
        IArbitrator indexed _arbitrator, uint256 indexed _evidenceGroupID, address indexed _party, string _evidence
    );

    /// @notice Emitted when a dispute is raised with an arbitrator.
    event Dispute(
        IArbitrator indexed _arbitrator, uint256 indexed _disputeID, uint256 _metaEvidenceID, uint256 _evidenceGroupID
    );
}
