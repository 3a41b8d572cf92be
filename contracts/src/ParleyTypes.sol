// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @notice The EIP-712 Settlement both parties sign when they agree (DESIGN.md).
/// Every term is in the clear so a wallet can show a person what is signed.
struct Settlement {
    bytes16 negotiationId;
    address poster;
    address worker;
    address token; // the zero address for native ETH
    uint256 amount; // the sum of milestoneAmounts
    uint256[] milestoneAmounts;
    uint64 deadline; // Unix seconds: the last moment a proof may be submitted
    bytes32 termsHash; // SHA-256 of the JCS terms
    bytes32 acceptedOfferHash; // envelope hash of the accepted offer
    uint256 nonce; // the poster's random 128-bit value from the terms
}

/// @notice The EIP-712 Amendment of a funded task's milestones, deadline and terms.
struct Amendment {
    uint256[] milestoneAmounts;
    uint64 deadline;
    bytes32 termsHash;
    uint256 nonce; // must equal the task's nonce
}

/// @notice The EIP-712 Replacement of a funded task's worker.
struct Replacement {
    address newWorker;
    bytes32 handoffHash; // hash of the ReplacementContext handed to the new worker
    uint256 nonce; // must equal the task's nonce
}

/// @notice Where a milestone stands.
enum MilestoneState {
    Open, // funded, no proof yet
    Submitted, // the worker submitted a proof; the poster may release it
    Released, // paid to the worker
    Refunded, // returned to the poster
    Revising // the poster sent the last proof back to work; the review clock is stopped
}

/// @notice Where a task stands.
enum TaskStatus {
    None,
    Active,
    Disputed,
    Closed
}

/// @notice One milestone of a task.
struct Milestone {
    uint256 amount; // as agreed (or amended)
    uint256 released; // paid to the worker so far (partial releases; the amount once Released)
    uint64 submittedAt; // when the last proof was submitted (Revising: when the revision was asked), 0 if never
    uint8 revisions; // revision requests since the milestone was funded or handed to a new worker
    MilestoneState state;
}

/// @notice The state of a task. The registry stores only its hash (one slot per
/// task); callers re-pass it, and every change emits the new state in
/// TaskRegistry.TaskUpdated.
struct Task {
    address poster;
    address worker;
    address token;
    uint64 deadline;
    uint64 nonce; // counts amendments and replacements; signatures name it
    TaskStatus status;
    bytes32 termsHash;
    Milestone[] milestones;
}

/// @notice What a dispute is about: the escrow still held for the task when it
/// was opened, the parties, and the bond the opener posted.
struct DisputeTerms {
    address poster;
    address worker;
    address token;
    uint256 escrow;
    address opener;
    uint256 bond;
}
