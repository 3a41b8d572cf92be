// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {DisputeTerms} from "./ParleyTypes.sol";
import {ParleyHashes} from "./ParleyHashes.sol";
import {IArbitrable} from "./interfaces/IArbitrable.sol";
import {IArbitrator} from "./interfaces/IArbitrator.sol";
import {IEvidence} from "./interfaces/IEvidence.sol";
import {ITaskRegistrySettlement, IArbitrationModuleOpen} from "./interfaces/IParley.sol";

/// @title ArbitrationModule
/// @notice Disputes about TaskRegistry tasks. A dispute is opened through the
/// registry (the opener posts a bond there); each party proposes an arbitrator
/// and one is assigned only when both named the same address, a person's or
/// an ERC-792 arbitrator contract's. The arbitrator rules through
/// IArbitrable.rule: 0 refuses to rule, r in 1..10001 gives the worker r-1
/// basis points of the disputed escrow. The dispute id is uint256(taskId);
/// MetaEvidence and Evidence follow ERC-1497 with that id as the
/// meta-evidence and evidence-group id.
contract ArbitrationModule is IArbitrable, IEvidence, IArbitrationModuleOpen, ReentrancyGuardTransient {
    /// @notice The highest ruling: all of the escrow to the worker.
    uint256 public constant MAX_RULING = 10_001;
    /// @notice The worker's share, in basis points, when a dispute times out.
    uint256 public constant TIMEOUT_WORKER_BPS = 5_000;

    /// @notice Where a dispute stands.
    enum Status {
        None,
        AwaitingArbitrator, // open; parties propose until they name the same one
        Assigned, // an arbitrator both named may rule
        Resolved // paid out
    }

    /// @notice One dispute.
    struct DisputeRecord {
        DisputeTerms terms;
        address posterChoice;
        address workerChoice;
        address arbitrator;
        uint64 since; // when the current stage began: opening, assignment or refusal
        Status status;
        bool raised; // raised with the arbitrator contract (ERC-792 createDispute)
    }

    /// @inheritdoc IArbitrationModuleOpen
    address public immutable registry;
    /// @inheritdoc IArbitrationModuleOpen
    uint256 public immutable bond;
    /// @notice Seconds the parties have to agree on an arbitrator.
    uint64 public immutable assignTimeout;
    /// @notice Seconds an assigned arbitrator has to rule.
    uint64 public immutable ruleTimeout;

    mapping(uint256 disputeId => DisputeRecord) internal _disputes;
    /// @notice Our dispute id (as bytes32 task id) for an arbitrator contract's own dispute id.
    mapping(address arbitrator => mapping(uint256 externalId => bytes32 taskId)) public externalDispute;

    /// @notice Emitted when the registry opens a dispute.
    event DisputeOpened(uint256 indexed disputeId, address indexed opener, uint256 escrow);
    /// @notice Emitted when a party proposes an arbitrator.
    event ArbitratorProposed(uint256 indexed disputeId, address indexed party, address indexed arbitrator);
    /// @notice Emitted when both parties named the same arbitrator.
    event ArbitratorAssigned(uint256 indexed disputeId, address indexed arbitrator);
    /// @notice Emitted when the arbitrator refused to rule (ruling 0); proposals start over.
    event ArbitrationRefused(uint256 indexed disputeId, address indexed arbitrator);
    /// @notice Emitted when a dispute is paid out, by ruling or by timeout.
    event DisputeResolved(uint256 indexed disputeId, uint256 workerBps, bool timedOut);

    /// @notice The caller is not the registry.
    error NotRegistry(address caller);
    /// @notice The caller is neither poster nor worker of the dispute.
    error NotParty(address caller);
    /// @notice The caller is not the assigned arbitrator.
    error NotArbitrator(address caller);
    /// @notice The dispute is not in the stage the call needs.
    error WrongStage(uint256 disputeId, Status status);
    /// @notice The arbitrator is zero or one of the parties.
    error BadArbitrator(address arbitrator);
    /// @notice A ruling above MAX_RULING.
    error BadRuling(uint256 ruling);
    /// @notice The dispute's current stage has not timed out yet.
    error NotTimedOut(uint64 timesOutAt);
    /// @notice The assigned arbitrator has no code, or the dispute was already raised with it.
    error CannotRaise(address arbitrator);
    /// @notice The arbitrator contract returned a dispute id already mapped.
    error ExternalIdTaken(uint256 externalId);
    /// @notice Evidence without a content identifier.
    error EmptyEvidence();

    /// @param registry_ the TaskRegistry (deployed right after this module).
    /// @param bond_ the bond in wei a party posts to open a dispute.
    /// @param assignTimeout_ seconds the parties have to agree on an arbitrator.
    /// @param ruleTimeout_ seconds an assigned arbitrator has to rule.
    constructor(address registry_, uint256 bond_, uint64 assignTimeout_, uint64 ruleTimeout_) {
        registry = registry_;
        bond = bond_;
        assignTimeout = assignTimeout_;
        ruleTimeout = ruleTimeout_;
    }

    /// @inheritdoc IArbitrationModuleOpen
    function open(bytes32 taskId, DisputeTerms calldata terms, bytes32 termsHash) external {
        if (msg.sender != registry) revert NotRegistry(msg.sender);
        uint256 id = uint256(taskId);
        DisputeRecord storage d = _disputes[id];
        if (d.status != Status.None) revert WrongStage(id, d.status);
        d.terms = terms;
        d.since = uint64(block.timestamp);
        d.status = Status.AwaitingArbitrator;
        emit DisputeOpened(id, terms.opener, terms.escrow);
        emit MetaEvidence(id, ParleyHashes.termsURI(termsHash));
    }

    /// @notice A party names the arbitrator it accepts; it may change its
    /// choice until both named the same address, which assigns it.
    function proposeArbitrator(uint256 disputeId, address arbitrator) external nonReentrant {
        DisputeRecord storage d = _disputes[disputeId];
        if (d.status != Status.AwaitingArbitrator) revert WrongStage(disputeId, d.status);
        if (arbitrator == address(0) || arbitrator == d.terms.poster || arbitrator == d.terms.worker) {
            revert BadArbitrator(arbitrator);
        }
        if (msg.sender == d.terms.poster) {
            d.posterChoice = arbitrator;
        } else if (msg.sender == d.terms.worker) {
            d.workerChoice = arbitrator;
        } else {
            revert NotParty(msg.sender);
        }
        emit ArbitratorProposed(disputeId, msg.sender, arbitrator);
        if (d.posterChoice == d.workerChoice) {
            d.arbitrator = arbitrator;
            d.status = Status.Assigned;
            d.since = uint64(block.timestamp);
            emit ArbitratorAssigned(disputeId, arbitrator);
            emit Dispute(IArbitrator(arbitrator), disputeId, disputeId, disputeId);
        }
    }

    /// @notice Raises an assigned dispute with its ERC-792 arbitrator contract,
    /// paying its arbitration cost with msg.value; the contract later calls
    /// rule with its own dispute id. Not needed when the arbitrator is a person.
    function raiseWithArbitrator(uint256 disputeId, bytes calldata extraData)
        external
        payable
        nonReentrant
        returns (uint256 externalId)
    {
        DisputeRecord storage d = _disputes[disputeId];
        if (d.status != Status.Assigned) revert WrongStage(disputeId, d.status);
        address arb = d.arbitrator;
        if (arb.code.length == 0 || d.raised) revert CannotRaise(arb);
        d.raised = true;
        externalId = IArbitrator(arb).createDispute{value: msg.value}(MAX_RULING, extraData);
        if (externalDispute[arb][externalId] != 0) revert ExternalIdTaken(externalId);
        externalDispute[arb][externalId] = bytes32(disputeId);
        emit Dispute(IArbitrator(arb), externalId, disputeId, disputeId);
    }

    /// @notice The assigned arbitrator rules. _disputeID is our dispute id, or
    /// the arbitrator contract's own id when the dispute was raised with it.
    /// 0 refuses (the arbitrator is unassigned and proposals start over);
    /// r in 1..10001 pays the worker r-1 basis points of the escrow and the
    /// poster the rest, and the bond goes to the arbitrator.
    function rule(uint256 _disputeID, uint256 _ruling) external nonReentrant {
        uint256 id = _disputeID;
        bytes32 mapped = externalDispute[msg.sender][_disputeID];
        if (mapped != 0) id = uint256(mapped);
        DisputeRecord storage d = _disputes[id];
        if (d.status != Status.Assigned) revert WrongStage(id, d.status);
        if (msg.sender != d.arbitrator) revert NotArbitrator(msg.sender);
        if (_ruling > MAX_RULING) revert BadRuling(_ruling);
        emit Ruling(IArbitrator(msg.sender), _disputeID, _ruling);
        if (_ruling == 0) {
            d.arbitrator = address(0);
            d.posterChoice = address(0);
            d.workerChoice = address(0);
            d.raised = false;
            d.status = Status.AwaitingArbitrator;
            d.since = uint64(block.timestamp);
            emit ArbitrationRefused(id, msg.sender);
            return;
        }
        d.status = Status.Resolved;
        emit DisputeResolved(id, _ruling - 1, false);
        ITaskRegistrySettlement(registry).settleDispute(bytes32(id), d.terms, _ruling - 1, msg.sender);
    }

    /// @notice Anyone resolves a dispute whose stage timed out (no arbitrator
    /// agreed within assignTimeout, or no ruling within ruleTimeout): the
    /// escrow is split evenly and the bond returns to the opener.
    function resolveTimedOut(uint256 disputeId) external nonReentrant {
        DisputeRecord storage d = _disputes[disputeId];
        uint64 timesOutAt;
        if (d.status == Status.AwaitingArbitrator) {
            timesOutAt = d.since + assignTimeout;
        } else if (d.status == Status.Assigned) {
            timesOutAt = d.since + ruleTimeout;
        } else {
            revert WrongStage(disputeId, d.status);
        }
        if (block.timestamp < timesOutAt) revert NotTimedOut(timesOutAt);
        d.status = Status.Resolved;
        emit DisputeResolved(disputeId, TIMEOUT_WORKER_BPS, true);
        ITaskRegistrySettlement(registry).settleDispute(bytes32(disputeId), d.terms, TIMEOUT_WORKER_BPS, d.terms.opener);
    }

    /// @notice A party or the assigned arbitrator adds evidence (ERC-1497),
    /// named by its content identifier.
    function submitEvidence(uint256 disputeId, string calldata evidenceCid) external {
        DisputeRecord storage d = _disputes[disputeId];
        if (d.status != Status.AwaitingArbitrator && d.status != Status.Assigned) {
            revert WrongStage(disputeId, d.status);
        }
        if (msg.sender != d.terms.poster && msg.sender != d.terms.worker && msg.sender != d.arbitrator) {
            revert NotParty(msg.sender);
        }
        if (bytes(evidenceCid).length == 0) revert EmptyEvidence();
        emit Evidence(IArbitrator(d.arbitrator), disputeId, msg.sender, evidenceCid);
    }

    /// @notice Returns the dispute with id disputeId (status None if there is none).
    function dispute(uint256 disputeId) external view returns (DisputeRecord memory) {
        return _disputes[disputeId];
    }
}
