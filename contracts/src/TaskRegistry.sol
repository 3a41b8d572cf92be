// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

import {
    Settlement, Amendment, Replacement, Milestone, MilestoneState, Task, TaskStatus, DisputeTerms
} from "./ParleyTypes.sol";
import {ParleyHashes} from "./ParleyHashes.sol";
import {ITaskRegistrySettlement, IArbitrationModuleOpen} from "./interfaces/IParley.sol";

/// @title TaskRegistry
/// @notice Escrow for negotiated tasks. A task is created from an EIP-712
/// Settlement signed by poster and worker; its id is the settlement digest,
/// usable once. The registry stores one slot per task, the hash of its state;
/// callers re-pass the state (emitted in TaskUpdated after every change).
/// Money leaves only by pull (withdraw), behind a reentrancy guard.
contract TaskRegistry is EIP712, ReentrancyGuardTransient, ITaskRegistrySettlement {
    using SafeERC20 for IERC20;

    /// @notice The most milestones a task may have.
    uint256 public constant MAX_MILESTONES = 64;
    /// @notice Basis points of a whole escrow.
    uint256 public constant BPS = 10_000;
    /// @notice The most revision requests a milestone takes (per worker): after
    /// them the poster answers a proof by releasing it, a dispute, or not at
    /// all (the worker then claims it).
    uint8 public constant MAX_REVISIONS = 3;

    /// @dev The state hash of a task closed by a dispute's outcome.
    bytes32 internal constant CLOSED = bytes32(uint256(1));

    /// @notice The ArbitrationModule that rules on this registry's disputes.
    IArbitrationModuleOpen public immutable arbitration;
    /// @notice Seconds a poster has to answer a submitted proof before the
    /// worker may claim the milestone.
    uint64 public immutable reviewPeriod;

    /// @notice The hash of each task's state, by task id (the settlement digest).
    /// Zero means the digest was never used; it never returns to zero.
    mapping(bytes32 taskId => bytes32 stateHash) public taskState;
    /// @notice What the registry owes each account, by token (zero for ETH).
    mapping(address token => mapping(address account => uint256 amount)) public owed;

    /// @notice Emitted when a task is funded from a settlement.
    event TaskCreated(bytes32 indexed taskId, bytes16 indexed negotiationId, bytes32 acceptedOfferHash);
    /// @notice Emitted after every change with the task's new state.
    event TaskUpdated(bytes32 indexed taskId, Task task);
    /// @notice ERC-1497: the agreement a dispute about this task would be judged by.
    event MetaEvidence(uint256 indexed _metaEvidenceID, string _evidence);
    /// @notice Emitted when the worker submits a proof for a milestone.
    event ProofSubmitted(bytes32 indexed taskId, uint256 indexed milestone, string proofCid);
    /// @notice Emitted when a milestone is released to the worker; amount is
    /// what this call credits (the milestone less its earlier partial releases).
    event MilestoneReleased(bytes32 indexed taskId, uint256 indexed milestone, uint256 amount, bool unanswered);
    /// @notice Emitted when the poster sends a submitted milestone back to work:
    /// its review clock stops; the worker may resubmit until resubmitUntil.
    event RevisionRequested(bytes32 indexed taskId, uint256 indexed milestone, uint8 revisions, uint64 resubmitUntil);
    /// @notice Emitted when the poster releases part of a milestone: amount now,
    /// released in all so far (the milestone is Released once it is its amount).
    event PartReleased(bytes32 indexed taskId, uint256 indexed milestone, uint256 amount, uint256 released);
    /// @notice Emitted when unreleased milestones are returned to the poster.
    event EscrowRefunded(bytes32 indexed taskId, uint256 amount, bool cancelled);
    /// @notice Emitted when a task's milestones, deadline and terms are amended.
    event TaskAmended(bytes32 indexed taskId, uint64 nonce, bytes32 termsHash);
    /// @notice Emitted when a task is handed to a new worker.
    event WorkerReplaced(
        bytes32 indexed taskId, address indexed oldWorker, address indexed newWorker, bytes32 handoffHash
    );
    /// @notice Emitted when a party opens a dispute about a task.
    event DisputeOpened(bytes32 indexed taskId, address indexed opener, uint256 escrow, uint256 bond);
    /// @notice Emitted when a dispute's outcome is paid out.
    event DisputeSettled(bytes32 indexed taskId, uint256 workerAmount, uint256 posterAmount, address bondTo);
    /// @notice Emitted whenever the registry starts owing an account more.
    event Credited(bytes32 indexed taskId, address indexed account, address indexed token, uint256 amount);
    /// @notice Emitted when an account withdraws what it is owed.
    event Withdrawn(address indexed account, address indexed token, uint256 amount);

    /// @notice The caller is not the poster the call needs.
    error NotPoster(address caller);
    /// @notice The caller is not the worker the call needs.
    error NotWorker(address caller);
    /// @notice The caller is neither poster nor worker.
    error NotParty(address caller);
    /// @notice The caller is not the ArbitrationModule.
    error NotArbitration(address caller);
    /// @notice The worker is zero, the poster, or (for a replacement) the current worker.
    error BadWorker(address worker);
    /// @notice No milestones, too many, or a milestone of zero.
    error BadMilestones();
    /// @notice The settlement's amount is not the sum of its milestones.
    error AmountMismatch(uint256 amount, uint256 sum);
    /// @notice A deadline that has already passed.
    error DeadlinePassed(uint64 deadline);
    /// @notice The task's deadline has not passed yet.
    error DeadlineNotPassed(uint64 deadline);
    /// @notice This settlement digest was already used.
    error DigestUsed(bytes32 digest);
    /// @notice A signature that is not 65 bytes r||s||v with v 27/28 and low s.
    error MalformedSignature(address expected);
    /// @notice A well-formed signature by someone other than the expected signer.
    error WrongSigner(address expected, address recovered);
    /// @notice msg.value is not what the call needs.
    error BadValue(uint256 value, uint256 expected);
    /// @notice The token moved a different amount than asked.
    error TokenShortfall(uint256 received, uint256 expected);
    /// @notice No task has this id.
    error UnknownTask(bytes32 taskId);
    /// @notice The task state passed in is not the one stored.
    error StaleTask(bytes32 taskId);
    /// @notice The task is disputed or closed.
    error NotActive(bytes32 taskId);
    /// @notice The milestone's state forbids the call.
    error BadMilestone(uint256 milestone, MilestoneState state);
    /// @notice The milestone index is out of range.
    error NoSuchMilestone(uint256 milestone);
    /// @notice The poster still has time to answer this proof.
    error ReviewPending(uint64 until);
    /// @notice The proof's review period ended at until: the worker may claim it.
    error ReviewPeriodOver(uint64 until);
    /// @notice The milestone took MAX_REVISIONS revision requests already.
    error TooManyRevisions(uint256 milestone);
    /// @notice A partial release of zero, or of more than the milestone still holds.
    error BadPart(uint256 amount, uint256 remaining);
    /// @notice No milestone could be refunded.
    error NothingToRefund();
    /// @notice No escrow is left to dispute.
    error NothingInEscrow();
    /// @notice The nonce signed is not the task's nonce.
    error StaleNonce(uint256 expected, uint256 got);
    /// @notice An amendment that would change or drop a paid milestone.
    error BadAmendment(uint256 milestone);
    /// @notice A proof without a content identifier.
    error EmptyProof();
    /// @notice More than the caller is owed, or nothing.
    error InsufficientBalance(uint256 owed, uint256 requested);
    /// @notice A ruling share above 10000 basis points.
    error BadShare(uint256 workerBps);
    /// @notice The native transfer to the recipient failed.
    error TransferFailed(address to);
    /// @notice The module is wired to another registry.
    error ArbitrationMismatch(address registry);

    /// @param arbitration_ the ArbitrationModule, deployed with this registry's address.
    /// @param reviewPeriod_ seconds a poster has to answer a proof.
    constructor(IArbitrationModuleOpen arbitration_, uint64 reviewPeriod_) EIP712("Parley", "1") {
        if (arbitration_.registry() != address(this)) revert ArbitrationMismatch(arbitration_.registry());
        arbitration = arbitration_;
        reviewPeriod = reviewPeriod_;
    }

    // ---------------------------------------------------------------- funding

    /// @notice Funds a task from a settlement both parties signed. Only the
    /// poster may call it, paying the whole amount (msg.value for ETH, an
    /// allowance for ERC-20). Returns the task id, the settlement digest.
    function createTask(Settlement calldata s, bytes calldata posterSig, bytes calldata workerSig)
        external
        payable
        nonReentrant
        returns (bytes32 taskId)
    {
        if (msg.sender != s.poster) revert NotPoster(msg.sender);
        if (s.worker == address(0) || s.worker == s.poster) revert BadWorker(s.worker);
        uint256 n = s.milestoneAmounts.length;
        if (n == 0 || n > MAX_MILESTONES) revert BadMilestones();
        if (s.deadline <= block.timestamp) revert DeadlinePassed(s.deadline);

        taskId = _hashTypedDataV4(ParleyHashes.hashSettlement(s));
        if (taskState[taskId] != 0) revert DigestUsed(taskId);
        _checkSig(taskId, posterSig, s.poster);
        _checkSig(taskId, workerSig, s.worker);

        Task memory t;
        t.poster = s.poster;
        t.worker = s.worker;
        t.token = s.token;
        t.deadline = s.deadline;
        t.status = TaskStatus.Active;
        t.termsHash = s.termsHash;
        t.milestones = new Milestone[](n);
        uint256 sum;
        for (uint256 i; i < n; ++i) {
            uint256 a = s.milestoneAmounts[i];
            if (a == 0) revert BadMilestones();
            sum += a;
            t.milestones[i].amount = a;
        }
        if (sum != s.amount) revert AmountMismatch(s.amount, sum);
        _collect(s.token, s.poster, sum);

        taskState[taskId] = ParleyHashes.hashTask(t);
        emit TaskCreated(taskId, s.negotiationId, s.acceptedOfferHash);
        emit MetaEvidence(uint256(taskId), ParleyHashes.termsURI(s.termsHash));
        emit TaskUpdated(taskId, t);
    }

    // --------------------------------------------------------------- delivery

    /// @notice The worker submits (or resubmits) a proof for a milestone before
    /// the deadline; the poster's review period starts now. A milestone sent
    /// back to work (Revising) may be resubmitted until its resubmission window
    /// ends, the deadline or reviewPeriod after the revision request, whichever
    /// is later.
    function submitProof(bytes32 taskId, uint256 milestone, string calldata proofCid, Task calldata task)
        external
        nonReentrant
    {
        Task memory t = _loadActive(taskId, task);
        if (msg.sender != t.worker) revert NotWorker(msg.sender);
        if (bytes(proofCid).length == 0) revert EmptyProof();
        Milestone memory m = _milestone(t, milestone);
        uint64 until = m.state == MilestoneState.Revising ? _resubmitUntil(t.deadline, m.submittedAt) : t.deadline;
        if (block.timestamp > until) revert DeadlinePassed(until);
        if (!_live(m.state)) revert BadMilestone(milestone, m.state);
        m.state = MilestoneState.Submitted;
        m.submittedAt = uint64(block.timestamp);
        emit ProofSubmitted(taskId, milestone, proofCid);
        _save(taskId, t);
    }

    /// @notice The poster accepts a delivery, or releases a milestone before
    /// one: what the milestone still holds becomes owed to the worker.
    function releaseMilestone(bytes32 taskId, uint256 milestone, Task calldata task) external nonReentrant {
        Task memory t = _loadActive(taskId, task);
        if (msg.sender != t.poster) revert NotPoster(msg.sender);
        Milestone memory m = _milestone(t, milestone);
        if (!_live(m.state)) revert BadMilestone(milestone, m.state);
        _release(taskId, t, milestone, false);
    }

    /// @notice The poster releases part of a milestone (hours worked, a stream's
    /// rate over time): amount becomes owed to the worker and is added to the
    /// milestone's released total, which never exceeds the milestone. The part
    /// that releases the last of it releases the milestone. The milestone's
    /// state and review clock do not change otherwise.
    function releasePart(bytes32 taskId, uint256 milestone, uint256 amount, Task calldata task)
        external
        nonReentrant
    {
        Task memory t = _loadActive(taskId, task);
        if (msg.sender != t.poster) revert NotPoster(msg.sender);
        Milestone memory m = _milestone(t, milestone);
        if (!_live(m.state)) revert BadMilestone(milestone, m.state);
        uint256 remaining = m.amount - m.released;
        if (amount == 0 || amount > remaining) revert BadPart(amount, remaining);
        if (amount == remaining) {
            emit PartReleased(taskId, milestone, amount, m.amount);
            _release(taskId, t, milestone, false);
            return;
        }
        m.released += amount;
        _credit(taskId, t.worker, t.token, amount);
        emit PartReleased(taskId, milestone, amount, m.released);
        _save(taskId, t);
    }

    /// @notice The poster sends a submitted milestone back to work while its
    /// proof's review period runs: the review clock stops (the worker can no
    /// longer claim that proof) and the worker resubmits with submitProof until
    /// the deadline or reviewPeriod from now, whichever is later. At most
    /// MAX_REVISIONS times per milestone and worker.
    function requestRevision(bytes32 taskId, uint256 milestone, Task calldata task) external nonReentrant {
        Task memory t = _loadActive(taskId, task);
        if (msg.sender != t.poster) revert NotPoster(msg.sender);
        Milestone memory m = _milestone(t, milestone);
        if (m.state != MilestoneState.Submitted) revert BadMilestone(milestone, m.state);
        uint64 until = m.submittedAt + reviewPeriod;
        if (block.timestamp >= until) revert ReviewPeriodOver(until);
        if (m.revisions >= MAX_REVISIONS) revert TooManyRevisions(milestone);
        m.state = MilestoneState.Revising;
        m.submittedAt = uint64(block.timestamp);
        m.revisions++;
        emit RevisionRequested(taskId, milestone, m.revisions, _resubmitUntil(t.deadline, m.submittedAt));
        _save(taskId, t);
    }

    /// @notice The worker claims a milestone whose proof the poster left
    /// unanswered for the review period.
    function claimUnanswered(bytes32 taskId, uint256 milestone, Task calldata task) external nonReentrant {
        Task memory t = _loadActive(taskId, task);
        if (msg.sender != t.worker) revert NotWorker(msg.sender);
        Milestone memory m = _milestone(t, milestone);
        if (m.state != MilestoneState.Submitted) revert BadMilestone(milestone, m.state);
        uint64 until = m.submittedAt + reviewPeriod;
        if (block.timestamp < until) revert ReviewPending(until);
        _release(taskId, t, milestone, true);
    }

    /// @notice After the deadline, the poster takes back what remains of every
    /// milestone the worker never submitted a proof for, and of every one sent
    /// back to work whose resubmission window ended without a new proof.
    /// Submitted ones stay to be answered.
    function reclaimExpired(bytes32 taskId, Task calldata task) external nonReentrant {
        Task memory t = _loadActive(taskId, task);
        if (msg.sender != t.poster) revert NotPoster(msg.sender);
        if (block.timestamp <= t.deadline) revert DeadlineNotPassed(t.deadline);
        uint256 total;
        for (uint256 i; i < t.milestones.length; ++i) {
            Milestone memory m = t.milestones[i];
            if (
                m.state == MilestoneState.Open
                    || (m.state == MilestoneState.Revising && block.timestamp > _resubmitUntil(t.deadline, m.submittedAt))
            ) {
                m.state = MilestoneState.Refunded;
                total += m.amount - m.released;
            }
        }
        if (total == 0) revert NothingToRefund();
        _credit(taskId, t.poster, t.token, total);
        emit EscrowRefunded(taskId, total, false);
        _closeIfDone(t);
        _save(taskId, t);
    }

    // ------------------------------------------------------ signed changes

    /// @notice Cancels a task by mutual consent: every unreleased milestone
    /// returns to the poster. Anyone may submit both parties' Cancel signatures.
    function mutualCancel(bytes32 taskId, Task calldata task, bytes calldata posterSig, bytes calldata workerSig)
        external
        nonReentrant
    {
        Task memory t = _loadActive(taskId, task);
        bytes32 digest = _hashTypedDataV4(ParleyHashes.hashCancel(taskId, t.nonce));
        _checkSig(digest, posterSig, t.poster);
        _checkSig(digest, workerSig, t.worker);
        uint256 total;
        for (uint256 i; i < t.milestones.length; ++i) {
            Milestone memory m = t.milestones[i];
            if (_live(m.state)) {
                m.state = MilestoneState.Refunded;
                total += m.amount - m.released;
            }
        }
        if (total != 0) _credit(taskId, t.poster, t.token, total);
        emit EscrowRefunded(taskId, total, true);
        t.status = TaskStatus.Closed;
        _save(taskId, t);
    }

    /// @notice Amends a funded task's milestones, deadline and terms with both
    /// parties' Amendment signatures. Paid or refunded milestones keep their
    /// place and amount; a partly released one stays, above what it released.
    /// If the new escrow (what remains) is larger the poster pays the
    /// difference with this call; if smaller it becomes owed to the poster.
    function amend(
        bytes32 taskId,
        Amendment calldata a,
        Task calldata task,
        bytes calldata posterSig,
        bytes calldata workerSig
    ) external payable nonReentrant {
        Task memory t = _loadActive(taskId, task);
        if (a.nonce != t.nonce) revert StaleNonce(t.nonce, a.nonce);
        uint256 n = a.milestoneAmounts.length;
        if (n == 0 || n > MAX_MILESTONES) revert BadMilestones();
        if (a.deadline <= block.timestamp) revert DeadlinePassed(a.deadline);
        bytes32 digest = _hashTypedDataV4(ParleyHashes.hashAmendment(taskId, a));
        _checkSig(digest, posterSig, t.poster);
        _checkSig(digest, workerSig, t.worker);

        (Milestone[] memory ms, uint256 oldEscrow, uint256 newEscrow) = _amendMilestones(t.milestones, a.milestoneAmounts);
        if (newEscrow > oldEscrow) {
            if (msg.sender != t.poster) revert NotPoster(msg.sender);
            _collect(t.token, t.poster, newEscrow - oldEscrow);
        } else {
            if (msg.value != 0) revert BadValue(msg.value, 0);
            if (oldEscrow > newEscrow) _credit(taskId, t.poster, t.token, oldEscrow - newEscrow);
        }
        t.milestones = ms;
        t.deadline = a.deadline;
        t.termsHash = a.termsHash;
        t.nonce++;
        emit TaskAmended(taskId, t.nonce, a.termsHash);
        _closeIfDone(t);
        _save(taskId, t);
    }

    /// @notice Hands a funded task to a new worker with the Replacement
    /// signatures of the poster and the current worker, the two parties whose
    /// agreement it changes (the new worker takes on no obligation it could
    /// not simply ignore). Unreleased milestones pass to the new worker as
    /// open, with a fresh count of revisions: proofs the old worker submitted
    /// do not carry over (what it was paid of a milestone stays paid).
    function replaceWorker(
        bytes32 taskId,
        Replacement calldata r,
        Task calldata task,
        bytes calldata posterSig,
        bytes calldata workerSig
    ) external nonReentrant {
        Task memory t = _loadActive(taskId, task);
        if (r.nonce != t.nonce) revert StaleNonce(t.nonce, r.nonce);
        if (r.newWorker == address(0) || r.newWorker == t.poster || r.newWorker == t.worker) {
            revert BadWorker(r.newWorker);
        }
        bytes32 digest = _hashTypedDataV4(ParleyHashes.hashReplacement(taskId, r));
        _checkSig(digest, posterSig, t.poster);
        _checkSig(digest, workerSig, t.worker);
        for (uint256 i; i < t.milestones.length; ++i) {
            Milestone memory m = t.milestones[i];
            if (_live(m.state)) {
                m.state = MilestoneState.Open;
                m.submittedAt = 0;
                m.revisions = 0;
            }
        }
        emit WorkerReplaced(taskId, t.worker, r.newWorker, r.handoffHash);
        t.worker = r.newWorker;
        t.nonce++;
        _save(taskId, t);
    }

    // -------------------------------------------------------------- disputes

    /// @notice Poster or worker opens a dispute about the task's unreleased
    /// escrow, posting the ArbitrationModule's bond in ETH. The dispute id in
    /// the module is uint256(taskId). Timeouts stop while it is open.
    function openDispute(bytes32 taskId, Task calldata task) external payable nonReentrant returns (uint256 disputeId) {
        Task memory t = _loadActive(taskId, task);
        if (msg.sender != t.poster && msg.sender != t.worker) revert NotParty(msg.sender);
        uint256 escrow = _escrow(t);
        if (escrow == 0) revert NothingInEscrow();
        uint256 bond = arbitration.bond();
        if (msg.value != bond) revert BadValue(msg.value, bond);

        DisputeTerms memory d = DisputeTerms({
            poster: t.poster, worker: t.worker, token: t.token, escrow: escrow, opener: msg.sender, bond: bond
        });
        t.status = TaskStatus.Disputed;
        taskState[taskId] = ParleyHashes.hashDispute(d);
        emit DisputeOpened(taskId, msg.sender, escrow, bond);
        emit TaskUpdated(taskId, t);
        arbitration.open(taskId, d, t.termsHash);
        return uint256(taskId);
    }

    /// @inheritdoc ITaskRegistrySettlement
    function settleDispute(bytes32 taskId, DisputeTerms calldata terms, uint256 workerBps, address bondTo)
        external
        nonReentrant
    {
        if (msg.sender != address(arbitration)) revert NotArbitration(msg.sender);
        if (taskState[taskId] != ParleyHashes.hashDispute(terms)) revert StaleTask(taskId);
        if (workerBps > BPS) revert BadShare(workerBps);
        uint256 toWorker = terms.escrow * workerBps / BPS;
        uint256 toPoster = terms.escrow - toWorker;
        taskState[taskId] = CLOSED;
        if (toWorker != 0) _credit(taskId, terms.worker, terms.token, toWorker);
        if (toPoster != 0) _credit(taskId, terms.poster, terms.token, toPoster);
        if (terms.bond != 0) _credit(taskId, bondTo, address(0), terms.bond);
        emit DisputeSettled(taskId, toWorker, toPoster, bondTo);
    }

    // ------------------------------------------------------------ withdrawal

    /// @notice Pays the caller amount of what the registry owes it in token
    /// (zero for ETH).
    function withdraw(address token, uint256 amount) external nonReentrant {
        uint256 bal = owed[token][msg.sender];
        if (amount == 0 || amount > bal) revert InsufficientBalance(bal, amount);
        owed[token][msg.sender] = bal - amount;
        emit Withdrawn(msg.sender, token, amount);
        if (token == address(0)) {
            (bool ok,) = msg.sender.call{value: amount}("");
            if (!ok) revert TransferFailed(msg.sender);
        } else {
            IERC20(token).safeTransfer(msg.sender, amount);
        }
    }

    // ----------------------------------------------------------------- views

    /// @notice Returns the EIP-712 digest of a settlement under this registry's
    /// domain: the task id createTask would give it.
    function settlementDigest(Settlement calldata s) external view returns (bytes32) {
        return _hashTypedDataV4(ParleyHashes.hashSettlement(s));
    }

    /// @notice Returns the EIP-712 digest of an amendment of taskId.
    function amendmentDigest(bytes32 taskId, Amendment calldata a) external view returns (bytes32) {
        return _hashTypedDataV4(ParleyHashes.hashAmendment(taskId, a));
    }

    /// @notice Returns the EIP-712 digest of a replacement of taskId's worker.
    function replacementDigest(bytes32 taskId, Replacement calldata r) external view returns (bytes32) {
        return _hashTypedDataV4(ParleyHashes.hashReplacement(taskId, r));
    }

    /// @notice Returns the EIP-712 digest of a cancel of taskId at nonce.
    function cancelDigest(bytes32 taskId, uint256 nonce) external view returns (bytes32) {
        return _hashTypedDataV4(ParleyHashes.hashCancel(taskId, nonce));
    }

    /// @notice Returns the EIP-712 domain separator.
    function domainSeparator() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @notice Returns the hash the registry stores for a task state.
    function hashTask(Task calldata task) external pure returns (bytes32) {
        return ParleyHashes.hashTask(task);
    }

    // -------------------------------------------------------------- internal

    function _checkSig(bytes32 digest, bytes calldata sig, address expected) internal pure {
        (address got, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, sig);
        if (err != ECDSA.RecoverError.NoError) revert MalformedSignature(expected);
        if (got != expected) revert WrongSigner(expected, got);
    }

    function _collect(address token, address from, uint256 amount) internal {
        if (token == address(0)) {
            if (msg.value != amount) revert BadValue(msg.value, amount);
            return;
        }
        if (msg.value != 0) revert BadValue(msg.value, 0);
        uint256 before = IERC20(token).balanceOf(address(this));
        IERC20(token).safeTransferFrom(from, address(this), amount);
        uint256 received = IERC20(token).balanceOf(address(this)) - before;
        if (received != amount) revert TokenShortfall(received, amount);
    }

    function _credit(bytes32 taskId, address account, address token, uint256 amount) internal {
        owed[token][account] += amount;
        emit Credited(taskId, account, token, amount);
    }

    function _loadActive(bytes32 taskId, Task calldata task) internal view returns (Task memory t) {
        bytes32 h = taskState[taskId];
        if (h == 0) revert UnknownTask(taskId);
        if (h == CLOSED || task.status != TaskStatus.Active) revert NotActive(taskId);
        t = task;
        if (ParleyHashes.hashTask(t) != h) revert StaleTask(taskId);
    }

    function _save(bytes32 taskId, Task memory t) internal {
        taskState[taskId] = ParleyHashes.hashTask(t);
        emit TaskUpdated(taskId, t);
    }

    function _milestone(Task memory t, uint256 i) internal pure returns (Milestone memory) {
        if (i >= t.milestones.length) revert NoSuchMilestone(i);
        return t.milestones[i];
    }

    /// @dev Releases what milestone i still holds.
    function _release(bytes32 taskId, Task memory t, uint256 i, bool unanswered) internal {
        Milestone memory m = t.milestones[i];
        uint256 amount = m.amount - m.released;
        m.state = MilestoneState.Released;
        m.released = m.amount;
        _credit(taskId, t.worker, t.token, amount);
        emit MilestoneReleased(taskId, i, amount, unanswered);
        _closeIfDone(t);
        _save(taskId, t);
    }

    /// @dev A milestone that still holds escrow: Open, Submitted or Revising.
    function _live(MilestoneState st) internal pure returns (bool) {
        return st == MilestoneState.Open || st == MilestoneState.Submitted || st == MilestoneState.Revising;
    }

    /// @dev The end of a Revising milestone's resubmission window: the deadline,
    /// or reviewPeriod after the revision request, whichever is later.
    function _resubmitUntil(uint64 deadline, uint64 requestedAt) internal view returns (uint64) {
        uint64 until = requestedAt + reviewPeriod;
        return until > deadline ? until : deadline;
    }

    function _escrow(Task memory t) internal pure returns (uint256 sum) {
        for (uint256 i; i < t.milestones.length; ++i) {
            Milestone memory m = t.milestones[i];
            if (_live(m.state)) sum += m.amount - m.released;
        }
    }

    function _closeIfDone(Task memory t) internal pure {
        for (uint256 i; i < t.milestones.length; ++i) {
            if (_live(t.milestones[i].state)) return;
        }
        t.status = TaskStatus.Closed;
    }

    function _amendMilestones(Milestone[] memory old, uint256[] calldata amounts)
        internal
        pure
        returns (Milestone[] memory ms, uint256 oldEscrow, uint256 newEscrow)
    {
        uint256 n = amounts.length;
        ms = new Milestone[](n);
        uint256 max = old.length > n ? old.length : n;
        for (uint256 i; i < max; ++i) {
            bool settled;
            uint256 released;
            if (i < old.length) {
                MilestoneState st = old[i].state;
                settled = st == MilestoneState.Released || st == MilestoneState.Refunded;
                if (settled) {
                    if (i >= n || amounts[i] != old[i].amount) revert BadAmendment(i);
                    ms[i] = old[i];
                    continue;
                }
                released = old[i].released;
                // A partly released milestone stays, above what it released.
                if (released != 0 && (i >= n || amounts[i] <= released)) revert BadAmendment(i);
                oldEscrow += old[i].amount - released;
            }
            if (i >= n) continue;
            if (amounts[i] == 0) revert BadMilestones();
            newEscrow += amounts[i] - released;
            if (i < old.length) {
                ms[i] = Milestone({
                    amount: amounts[i],
                    released: released,
                    submittedAt: old[i].submittedAt,
                    revisions: old[i].revisions,
                    state: old[i].state
                });
            } else {
                ms[i].amount = amounts[i];
            }
        }
    }
}
