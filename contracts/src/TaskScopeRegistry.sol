// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title TaskScopeRegistry
/// @notice A poster publishes the scope hash of a public task, keyed by the
/// envelope hash of its task-board announcement. Private-discovery tasks
/// publish nothing here: their scope travels only in the encrypted
/// negotiation.
contract TaskScopeRegistry {
    /// @notice One published scope.
    struct Scope {
        address poster;
        uint64 publishedAt;
        bool withdrawn;
        bytes32 scopeHash;
    }

    mapping(bytes32 announcementHash => Scope) internal _scopes;

    /// @notice Emitted when a poster publishes a task's scope hash.
    event ScopePublished(bytes32 indexed announcementHash, address indexed poster, bytes32 scopeHash);
    /// @notice Emitted when the poster withdraws a published task.
    event ScopeWithdrawn(bytes32 indexed announcementHash, address indexed poster);

    /// @notice The announcement already has a scope.
    error AlreadyPublished(bytes32 announcementHash);
    /// @notice No scope was published for the announcement, or it was withdrawn.
    error NotPublished(bytes32 announcementHash);
    /// @notice The caller is not the poster who published it.
    error NotPoster(address caller);
    /// @notice A zero hash.
    error BadHash();

    /// @notice Publishes scopeHash for the announcement; the caller becomes its poster.
    function publish(bytes32 announcementHash, bytes32 scopeHash) external {
        if (announcementHash == 0 || scopeHash == 0) revert BadHash();
        if (_scopes[announcementHash].poster != address(0)) revert AlreadyPublished(announcementHash);
        _scopes[announcementHash] =
            Scope({poster: msg.sender, publishedAt: uint64(block.timestamp), withdrawn: false, scopeHash: scopeHash});
        emit ScopePublished(announcementHash, msg.sender, scopeHash);
    }

    /// @notice The poster withdraws the task; its record stays, marked withdrawn.
    function withdraw(bytes32 announcementHash) external {
        Scope storage s = _scopes[announcementHash];
        if (s.poster == address(0) || s.withdrawn) revert NotPublished(announcementHash);
        if (s.poster != msg.sender) revert NotPoster(msg.sender);
        s.withdrawn = true;
        emit ScopeWithdrawn(announcementHash, msg.sender);
    }

    /// @notice Returns the scope published for an announcement (poster zero if none).
    function scopeOf(bytes32 announcementHash) external view returns (Scope memory) {
        return _scopes[announcementHash];
    }
}
