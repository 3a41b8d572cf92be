// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title IdentityLink
/// @notice An EVM address publishes the inbox key, libp2p peer id and
/// identity-link hash of the Parley node acting for it. Only the address
/// itself may register, rotate or revoke its record. The record is a claim:
/// readers fetch the signed identity link, check it hashes to linkHash and
/// verify its signatures (the inbox key's ed25519 signature cannot be checked
/// here).
contract IdentityLink {
    /// @notice The longest peer id accepted, in bytes.
    uint256 public constant MAX_PEER_ID = 128;

    /// @notice One address's record.
    struct Record {
        bytes32 inboxKey; // ed25519 public key
        bytes32 linkHash; // SHA-256 of the JCS identity link
        uint64 updatedAt;
        string peerId;
    }

    mapping(address account => Record) internal _records;

    /// @notice Emitted when an address registers its first record, or again after a revoke.
    event LinkRegistered(address indexed account, bytes32 indexed inboxKey, string peerId, bytes32 linkHash);
    /// @notice Emitted when an address replaces its record (key rotation).
    event LinkRotated(
        address indexed account, bytes32 indexed inboxKey, string peerId, bytes32 linkHash, bytes32 previousLinkHash
    );
    /// @notice Emitted when an address withdraws its record.
    event LinkRevoked(address indexed account, bytes32 linkHash);

    /// @notice The address already has a record: rotate it instead.
    error AlreadyRegistered(address account);
    /// @notice The address has no record.
    error NotRegistered(address account);
    /// @notice A zero key or hash, or an empty or overlong peer id.
    error BadRecord();

    /// @notice Registers the caller's record.
    function register(bytes32 inboxKey, string calldata peerId, bytes32 linkHash) external {
        if (_records[msg.sender].linkHash != 0) revert AlreadyRegistered(msg.sender);
        _write(inboxKey, peerId, linkHash);
        emit LinkRegistered(msg.sender, inboxKey, peerId, linkHash);
    }

    /// @notice Replaces the caller's record with new keys.
    function rotate(bytes32 inboxKey, string calldata peerId, bytes32 linkHash) external {
        bytes32 previous = _records[msg.sender].linkHash;
        if (previous == 0) revert NotRegistered(msg.sender);
        _write(inboxKey, peerId, linkHash);
        emit LinkRotated(msg.sender, inboxKey, peerId, linkHash, previous);
    }

    /// @notice Deletes the caller's record.
    function revoke() external {
        bytes32 previous = _records[msg.sender].linkHash;
        if (previous == 0) revert NotRegistered(msg.sender);
        delete _records[msg.sender];
        emit LinkRevoked(msg.sender, previous);
    }

    /// @notice Returns account's record; linkHash is zero when it has none.
    function recordOf(address account) external view returns (Record memory) {
        return _records[account];
    }

    function _write(bytes32 inboxKey, string calldata peerId, bytes32 linkHash) internal {
        uint256 n = bytes(peerId).length;
        if (inboxKey == 0 || linkHash == 0 || n == 0 || n > MAX_PEER_ID) revert BadRecord();
        _records[msg.sender] =
            Record({inboxKey: inboxKey, linkHash: linkHash, updatedAt: uint64(block.timestamp), peerId: peerId});
    }
}
