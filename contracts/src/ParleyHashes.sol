// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Settlement, Amendment, Replacement, Task, DisputeTerms} from "./ParleyTypes.sol";

/// @title ParleyHashes
/// @notice EIP-712 struct hashes of the types DESIGN.md pins, the hash of a
/// task's state, and the ERC-1497 meta-evidence URI of a task's terms.
library ParleyHashes {
    /// @dev keccak256 of the Settlement type string pinned by DESIGN.md.
    bytes32 internal constant SETTLEMENT_TYPEHASH = keccak256(
        "Settlement(bytes16 negotiationId,address poster,address worker,address token,uint256 amount,uint256[] milestoneAmounts,uint64 deadline,bytes32 termsHash,bytes32 acceptedOfferHash,uint256 nonce)"
    );
    /// @dev keccak256 of the Amendment type string pinned by DESIGN.md.
    bytes32 internal constant AMENDMENT_TYPEHASH = keccak256(
        "Amendment(bytes32 taskId,uint256[] milestoneAmounts,uint64 deadline,bytes32 termsHash,uint256 nonce)"
    );
    /// @dev keccak256 of the Replacement type string pinned by DESIGN.md.
    bytes32 internal constant REPLACEMENT_TYPEHASH =
        keccak256("Replacement(bytes32 taskId,address newWorker,bytes32 handoffHash,uint256 nonce)");
    /// @dev keccak256 of the Cancel type string pinned by DESIGN.md.
    bytes32 internal constant CANCEL_TYPEHASH = keccak256("Cancel(bytes32 taskId,uint256 nonce)");

    /// @dev Tags the stored hash of a disputed task so it can never equal the
    /// hash of a Task encoding.
    bytes32 internal constant DISPUTE_TAG = keccak256("parley.dispute");

    /// @notice Returns the EIP-712 struct hash of a settlement.
    function hashSettlement(Settlement calldata s) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                SETTLEMENT_TYPEHASH,
                s.negotiationId,
                s.poster,
                s.worker,
                s.token,
                s.amount,
                keccak256(abi.encodePacked(s.milestoneAmounts)),
                s.deadline,
                s.termsHash,
                s.acceptedOfferHash,
                s.nonce
            )
        );
    }

    /// @notice Returns the EIP-712 struct hash of an amendment of taskId.
    function hashAmendment(bytes32 taskId, Amendment calldata a) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                AMENDMENT_TYPEHASH,
                taskId,
                keccak256(abi.encodePacked(a.milestoneAmounts)),
                a.deadline,
                a.termsHash,
                a.nonce
            )
        );
    }

    /// @notice Returns the EIP-712 struct hash of a replacement of taskId's worker.
    function hashReplacement(bytes32 taskId, Replacement calldata r) internal pure returns (bytes32) {
        return keccak256(abi.encode(REPLACEMENT_TYPEHASH, taskId, r.newWorker, r.handoffHash, r.nonce));
    }

    /// @notice Returns the EIP-712 struct hash of a cancel of taskId.
    function hashCancel(bytes32 taskId, uint256 nonce) internal pure returns (bytes32) {
        return keccak256(abi.encode(CANCEL_TYPEHASH, taskId, nonce));
    }

    /// @notice Returns the hash the registry stores for a task's state.
    function hashTask(Task memory t) internal pure returns (bytes32) {
        return keccak256(abi.encode(t));
    }

    /// @notice Returns the hash the registry stores for a disputed task.
    function hashDispute(DisputeTerms memory d) internal pure returns (bytes32) {
        return keccak256(abi.encode(DISPUTE_TAG, d));
    }

    /// @notice Returns the ERC-1497 meta-evidence URI of a task's terms:
    /// "parley:terms:0x" followed by the 64 lowercase hex digits of termsHash,
    /// the SHA-256 of the JCS terms both parties hold in their ledgers.
    function termsURI(bytes32 termsHash) internal pure returns (string memory) {
        return string(abi.encodePacked("parley:terms:0x", _hex16(bytes16(termsHash)), _hex16(bytes16(termsHash << 128))));
    }

    /// @dev Spreads the 32 nibbles of data into 32 bytes of lowercase ASCII hex
    /// without a loop.
    function _hex16(bytes16 data) private pure returns (bytes32 r) {
        r = bytes32(data) & 0xFFFFFFFFFFFFFFFF000000000000000000000000000000000000000000000000
            | (bytes32(data) & 0x0000000000000000FFFFFFFFFFFFFFFF00000000000000000000000000000000) >> 64;
        r = r & 0xFFFFFFFF000000000000000000000000FFFFFFFF000000000000000000000000
            | (r & 0x00000000FFFFFFFF000000000000000000000000FFFFFFFF0000000000000000) >> 32;
        r = r & 0xFFFF000000000000FFFF000000000000FFFF000000000000FFFF000000000000
            | (r & 0x0000FFFF000000000000FFFF000000000000FFFF000000000000FFFF00000000) >> 16;
        r = r & 0xFF000000FF000000FF000000FF000000FF000000FF000000FF000000FF000000
            | (r & 0x00FF000000FF000000FF000000FF000000FF000000FF000000FF000000FF0000) >> 8;
        r = (r & 0xF000F000F000F000F000F000F000F000F000F000F000F000F000F000F000F000) >> 4
            | (r & 0x0F000F000F000F000F000F000F000F000F000F000F000F000F000F000F000F00) >> 8;
        r = bytes32(
            0x3030303030303030303030303030303030303030303030303030303030303030 + uint256(r)
                + ((uint256(r) + 0x0606060606060606060606060606060606060606060606060606060606060606) >> 4
                    & 0x0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F) * 39
        );
    }
}
