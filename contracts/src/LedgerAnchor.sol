// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title LedgerAnchor
/// @notice A node anchors the head hash and entry count of its hash-chained
/// ledger. The Anchored event (with its block) lets anyone check that a head
/// existed by a given time; counts only grow, so a rewritten ledger cannot be
/// anchored behind its own past.
contract LedgerAnchor {
    /// @notice The last count each node anchored.
    mapping(address node => uint64 count) public lastCount;

    /// @notice Emitted for every anchor.
    event Anchored(address indexed node, bytes32 indexed head, uint64 count, uint64 timestamp);

    /// @notice The count is not above the node's last anchored count.
    error CountNotIncreasing(uint64 last, uint64 count);
    /// @notice A zero head.
    error BadHead();

    /// @notice Anchors (head, count) for the calling node.
    function anchor(bytes32 head, uint64 count) external {
        if (head == 0) revert BadHead();
        uint64 last = lastCount[msg.sender];
        if (count <= last) revert CountNotIncreasing(last, count);
        lastCount[msg.sender] = count;
        emit Anchored(msg.sender, head, count, uint64(block.timestamp));
    }
}
