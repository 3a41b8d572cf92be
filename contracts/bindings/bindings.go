// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package bindings

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// Amendment is an auto generated low-level Go binding around an user-defined struct.
type Amendment struct {
	MilestoneAmounts []*big.Int
	Deadline         uint64
	TermsHash        [32]byte
	Nonce            *big.Int
}

// ArbitrationModuleDisputeRecord is an auto generated low-level Go binding around an user-defined struct.
type ArbitrationModuleDisputeRecord struct {
	Terms        DisputeTerms
	PosterChoice common.Address
	WorkerChoice common.Address
	Arbitrator   common.Address
	Since        uint64
	Status       uint8
	Raised       bool
}

// DisputeTerms is an auto generated low-level Go binding around an user-defined struct.
type DisputeTerms struct {
	Poster common.Address
	Worker common.Address
	Token  common.Address
	Escrow *big.Int
	Opener common.Address
	Bond   *big.Int
}

// IdentityLinkRecord is an auto generated low-level Go binding around an user-defined struct.
type IdentityLinkRecord struct {
	InboxKey  [32]byte
	LinkHash  [32]byte
	UpdatedAt uint64
	PeerId    string
}

// Milestone is an auto generated low-level Go binding around an user-defined struct.
type Milestone struct {
	Amount      *big.Int
	Released    *big.Int
	SubmittedAt uint64
	Revisions   uint8
	State       uint8
}

// Replacement is an auto generated low-level Go binding around an user-defined struct.
type Replacement struct {
	NewWorker   common.Address
	HandoffHash [32]byte
	Nonce       *big.Int
}

// Settlement is an auto generated low-level Go binding around an user-defined struct.
type Settlement struct {
	NegotiationId     [16]byte
	Poster            common.Address
	Worker            common.Address
	Token             common.Address
	Amount            *big.Int
	MilestoneAmounts  []*big.Int
	Deadline          uint64
	TermsHash         [32]byte
	AcceptedOfferHash [32]byte
	Nonce             *big.Int
}

// Task is an auto generated low-level Go binding around an user-defined struct.
type Task struct {
	Poster     common.Address
	Worker     common.Address
	Token      common.Address
	Deadline   uint64
	Nonce      uint64
	Status     uint8
	TermsHash  [32]byte
	Milestones []Milestone
}

// TaskScopeRegistryScope is an auto generated low-level Go binding around an user-defined struct.
type TaskScopeRegistryScope struct {
	Poster      common.Address
	PublishedAt uint64
	Withdrawn   bool
	ScopeHash   [32]byte
}

// ArbitrationModuleMetaData contains all meta data concerning the ArbitrationModule contract.
var ArbitrationModuleMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"registry_\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"bond_\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"assignTimeout_\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"ruleTimeout_\",\"type\":\"uint64\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"arbitrator\",\"type\":\"address\"}],\"name\":\"BadArbitrator\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"ruling\",\"type\":\"uint256\"}],\"name\":\"BadRuling\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"arbitrator\",\"type\":\"address\"}],\"name\":\"CannotRaise\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyEvidence\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"externalId\",\"type\":\"uint256\"}],\"name\":\"ExternalIdTaken\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotArbitrator\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotParty\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotRegistry\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"timesOutAt\",\"type\":\"uint64\"}],\"name\":\"NotTimedOut\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ReentrancyGuardReentrantCall\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"},{\"internalType\":\"enumArbitrationModule.Status\",\"name\":\"status\",\"type\":\"uint8\"}],\"name\":\"WrongStage\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"arbitrator\",\"type\":\"address\"}],\"name\":\"ArbitrationRefused\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"arbitrator\",\"type\":\"address\"}],\"name\":\"ArbitratorAssigned\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"party\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"arbitrator\",\"type\":\"address\"}],\"name\":\"ArbitratorProposed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"contractIArbitrator\",\"name\":\"_arbitrator\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"_disputeID\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"_metaEvidenceID\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"_evidenceGroupID\",\"type\":\"uint256\"}],\"name\":\"Dispute\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"opener\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"escrow\",\"type\":\"uint256\"}],\"name\":\"DisputeOpened\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"workerBps\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"timedOut\",\"type\":\"bool\"}],\"name\":\"DisputeResolved\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"contractIArbitrator\",\"name\":\"_arbitrator\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"_evidenceGroupID\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"_party\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"_evidence\",\"type\":\"string\"}],\"name\":\"Evidence\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"_metaEvidenceID\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"_evidence\",\"type\":\"string\"}],\"name\":\"MetaEvidence\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"contractIArbitrator\",\"name\":\"_arbitrator\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"_disputeID\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"_ruling\",\"type\":\"uint256\"}],\"name\":\"Ruling\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"MAX_RULING\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"TIMEOUT_WORKER_BPS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"assignTimeout\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"bond\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"}],\"name\":\"dispute\",\"outputs\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"escrow\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"opener\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"bond\",\"type\":\"uint256\"}],\"internalType\":\"structDisputeTerms\",\"name\":\"terms\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"posterChoice\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"workerChoice\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"arbitrator\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"since\",\"type\":\"uint64\"},{\"internalType\":\"enumArbitrationModule.Status\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bool\",\"name\":\"raised\",\"type\":\"bool\"}],\"internalType\":\"structArbitrationModule.DisputeRecord\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"arbitrator\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"externalId\",\"type\":\"uint256\"}],\"name\":\"externalDispute\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"escrow\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"opener\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"bond\",\"type\":\"uint256\"}],\"internalType\":\"structDisputeTerms\",\"name\":\"terms\",\"type\":\"tuple\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"}],\"name\":\"open\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"arbitrator\",\"type\":\"address\"}],\"name\":\"proposeArbitrator\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"raiseWithArbitrator\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"externalId\",\"type\":\"uint256\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"registry\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"}],\"name\":\"resolveTimedOut\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"_disputeID\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"_ruling\",\"type\":\"uint256\"}],\"name\":\"rule\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"ruleTimeout\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"},{\"internalType\":\"string\",\"name\":\"evidenceCid\",\"type\":\"string\"}],\"name\":\"submitEvidence\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "e2762cbba87f5eb0ea9401f7431ee233bf",
	Bin: "0x610100346100d257601f61158838819003918201601f19168301916001600160401b038311848410176100d6578084926080946040528339810103126100d2578051906001600160a01b03821682036100d257602081015161006f6060610068604085016100ea565b93016100ea565b9260805260a05260c05260e05260405161148990816100ff82396080518181816106ae01528181610a6401528181610c34015261105f015260a05181610756015260c05181818161071a01526109d8015260e0518181816104010152610b760152f35b5f80fd5b634e487b7160e01b5f52604160045260245ffd5b51906001600160401b03821682036100d25756fe60806040526004361015610011575f80fd5b5f5f3560e01c80630d1909f314610c0e578063311a6c5614610bd557806335dc5551146109815780633806fead1461077957806364c9ec6f1461073e578063768bd2a9146106fa57806376eda3dc146106dd5780637b103999146106985780637bd8276d1461065157806386d6282c1461042557806388de0ab6146103e1578063a6a7f0eb146102a7578063b6d14031146100d35763ed8dda30146100b4575f80fd5b346100d057806003193601126100d05760206040516113888152f35b80fd5b506100dd36610ea8565b9291906100e861123a565b81835282602052600860408420019384549460ff8660e01c166004811015610293576002810361027757506001600160a01b03861695863b15801561026a575b6102565760ff60e81b1916600160e81b1790556040805163c13517e160e01b815261271160048201526024810191909152939291602091859182916101729160448401919061121a565b038134885af192831561024b578293610213575b50838252600160205260408220838352602052604082205461020057837f74baab670a4015ab2f1b467c5252a96141a2573f2908e58a92081e80d3cfde3d604085936020978652600188528186208587528852808287205581519080825288820152a35f51602061145d5f395f51905f525d604051908152f35b50602491630932d8b560e41b8252600452fd5b9092506020813d602011610243575b8161022f60209383610f5a565b8101031261023f5751915f610186565b5080fd5b3d9150610222565b6040513d84823e3d90fd5b635b5ce81960e11b86526004879052602486fd5b5060ff8160e81c16610128565b856102916044928763adeb3ec560e01b8452600452610e9a565bfd5b634e487b7160e01b86526021600452602486fd5b50346100d0576102b636610ea8565b82849392935283602052604084209260088401549360ff8560e01c1660048110156103cd576001811415806103c2575b6103a8575080546001600160a01b03163314159081610390575b508061037d575b61036b57811561035c57604051602080825233956001600160a01b0316937fdccf2f8b2cc26eafcd61905cba744cff4b81d14740725f6376390dc6298a6a3c938392610356929084019161121a565b0390a480f35b63cb3a13f760e01b8552600485fd5b6282e6cd60e61b855233600452602485fd5b50336001600160a01b0385161415610307565b600101546001600160a01b031633141590505f610300565b866102916044928763adeb3ec560e01b8452600452610e9a565b5060028114156102e6565b634e487b7160e01b87526021600452602487fd5b50346100d057806003193601126100d05760206040516001600160401b037f0000000000000000000000000000000000000000000000000000000000000000168152f35b50346100d05760203660031901126100d0578060c060405161044681610f10565b60405161045281610f3f565b8381528360208201528360408201528360608201528360808201528360a082015281528260208201528260408201528260608201528260808201528260a0820152015260043581528060205260408120604051906104af82610f10565b6040516104bb81610f3f565b60018060a01b03825416815260018060a01b03600183015416602082015260018060a01b0360028301541660408201526003820154606082015260018060a01b036004830154166080820152600582015460a0820152825260018060a01b0360068201541660208301908152600860018060a01b0360078401541692604085019384520154916060840160018060a01b038416815260808501916001600160401b038560a01c16835260ff8560e01c169360a0870194600481101561063d57855260e89590951c60ff16151560c087810191825260408051985180516001600160a01b039081168b526020808301518216908c0152818301518116928b0192909252606080820151908b01526080808201518316908b015260a090810151908a015296518716908801529051851660e08701529051909316610100850152516001600160401b0316610120840152516004811015610629576101809350610140830152511515610160820152f35b634e487b7160e01b84526021600452602484fd5b634e487b7160e01b89526021600452602489fd5b50346100d05760403660031901126100d0576004356001600160a01b0381169081900361023f57816040916020935260018352818120602435825283522054604051908152f35b50346100d057806003193601126100d0576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b50346100d057806003193601126100d05760206040516127118152f35b50346100d057806003193601126100d05760206040516001600160401b037f0000000000000000000000000000000000000000000000000000000000000000168152f35b50346100d057806003193601126100d05760206040517f00000000000000000000000000000000000000000000000000000000000000008152f35b50346100d05760403660031901126100d0576004356024356001600160a01b0381169081900361097d576107ab61123a565b8183528260205260408320600881019060ff825460e01c166004811015610293576001810361027757508215801561096a575b8015610954575b610940578054336001600160a01b0390911603610911576006810180546001600160a01b031916841790555b8233857fd69f87d227edb9b85db0198cace0071184fb7c79ebd79addfed80c3233f386bd8880a460068101546007909101546001600160a01b0390811691161461086a575b83805f51602061145d5f395f51905f525d80f35b805467ffffffffffffffff60a01b1960ff60e01b198416600168ff000000000000000160a01b031990921691909117600160e11b17164260a01b67ffffffffffffffff60a01b161790557f74baab670a4015ab2f1b467c5252a96141a2573f2908e58a92081e80d3cfde3d6040805183857fbb4d82f67cd6e434be3ce4e849a0c3b18f1dce8d1b2e2f609e34c943289dd90b8880a3848152846020820152a35f8080610856565b6001810154336001600160a01b039091160361036b576007810180546001600160a01b03191684179055610811565b6337132c9560e01b85526004839052602485fd5b5060018101546001600160a01b031683146107e5565b5080546001600160a01b031683146107de565b8280fd5b5034610b48576020366003190112610b485760043561099e61123a565b805f525f60205260405f209060088201805460ff8160e01c166004811015610bc15760018103610b5e5750610a016001600160401b0391827f00000000000000000000000000000000000000000000000000000000000000009160a01c166111fa565b16804210610b4c5750805460ff60e01b1916600360e01b1790556040805161138881526001602082015282917fc84a77110774854ab237145b108e924962dbaa5191275eb044a6cb09621c4a9491a26004820180546001600160a01b03908116927f000000000000000000000000000000000000000000000000000000000000000090911690813b15610b4857604051626ead8560e81b8152600481019190915284546001600160a01b03908116602483015260018601548116604483015260028601548116606483015260038601546084830152925490921660a483015260059093015460c482015261138860e4820152610104810191909152905f90829061012490829084905af18015610b3d57610b2a575b50805f51602061145d5f395f51905f525d80f35b610b3691505f90610f5a565b5f5f610b16565b6040513d5f823e3d90fd5b5f80fd5b63082f81f760e31b5f5260045260245ffd5b60028103610ba45750610b9f6001600160401b0391827f00000000000000000000000000000000000000000000000000000000000000009160a01c166111fa565b610a01565b63adeb3ec560e01b5f526004849052610bbc90610e9a565b60445ffd5b634e487b7160e01b5f52602160045260245ffd5b34610b48576040366003190112610b4857610bee61123a565b610bfc602435600435610f7b565b5f5f51602061145d5f395f51905f525d005b34610b4857610100366003190112610b485760043560c0366023190112610b485760e4357f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03163303610e8757815f525f60205260405f2090600882019160ff835460e01c166004811015610bc15780610e6f57506024356001600160a01b0381168103610b485781546001600160a01b0319166001600160a01b039182161782556044359081168103610b48576001820180546001600160a01b0319166001600160a01b03928316179055606435939084168403610b48576002820180546001600160a01b0319166001600160a01b0390951694909417909355608435600382018190557f61606860eb6c87306811e2695215385101daab53bd6ab4e9f9049aead9363c7d939091610d46610efa565b6004820180546001600160a01b0319166001600160a01b0390921691909117905560c435600590910155805467ffffffffffffffff60a01b19164260a01b67ffffffffffffffff60a01b16178155805460ff60e01b1916600160e01b179055837f45c6ef09865025319c9f2a574b08ae087defce1c8b3640347d830c463909ce7b60206001600160a01b03610dd9610efa565b1693604051908152a36040610e0d610dfa6001600160801b0319841661126f565b9260801b6001600160801b03191661126f565b81519060208201936e0e0c2e4d8caf274e8cae4dae67460f608b1b8552602f830152604f820152604f8152610e43606f82610f5a565b8151928391602083525180918160208501528484015e5f828201840152601f01601f19168101030190a2005b63adeb3ec560e01b5f526004859052610bbc90610e9a565b63318d14a560e11b5f523360045260245ffd5b6004811015610bc157602452565b6040600319820112610b4857600435916024356001600160401b038111610b485760040182601f82011215610b48578035926001600160401b038411610b485760208481840193010111610b48579190565b60a4356001600160a01b0381168103610b485790565b60e081019081106001600160401b03821117610f2b57604052565b634e487b7160e01b5f52604160045260245ffd5b60c081019081106001600160401b03821117610f2b57604052565b90601f801991011681019081106001600160401b03821117610f2b57604052565b9081335f52600160205260405f20815f5260205260405f2054806111f2575b50825f525f60205260405f20906008820190815460ff8160e01c166004811015610bc157600281036111da57506001600160a01b031633036111c75761271184116111b4576040518481527f394027a5fa6e098a1191094d1719d6929b9abc535fcc0c8f448d6a4e7562227660203392a3821561113857805460ff60e01b1916600360e01b1790555f19820191821161112457827fc84a77110774854ab237145b108e924962dbaa5191275eb044a6cb09621c4a94604080518581525f6020820152a27f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316803b15610b4857604051626ead8560e81b815260048082019590955282546001600160a01b039081166024830152600184015481166044830152600284015481166064830152600384015460848301529483015490941660a485015260059091015460c484015260e4830191909152336101048301525f90829061012490829084905af18015610b3d576111185750565b5f61112291610f5a565b565b634e487b7160e01b5f52601160045260245ffd5b80546001600160a01b031990811682556006830180548216905560079092018054909216909155805469ffffffffffffffffffff60a01b19164260a01b67ffffffffffffffff60a01b1617600160e01b1790555033907f05c57e7d4597f31288f3795412fc8cb9bddd2849c37282315dcc4bdd70fb3a4e5f80a3565b83633add0ba560e21b5f5260045260245ffd5b6301abf5bd60e31b5f523360045260245ffd5b63adeb3ec560e01b5f526004879052610bbc90610e9a565b92505f610f9a565b906001600160401b03809116911601906001600160401b03821161112457565b908060209392818452848401375f828201840152601f01601f1916010190565b5f51602061145d5f395f51905f525c6112605760015f51602061145d5f395f51905f525d565b633ee5aeb560e01b5f5260045ffd5b8060401c906bffffffff0000000000000000821663ffffffff60c01b82161760201c9163ffffffff60601b169063ffffffff60e01b1617178060101c907fff00000000000000ff00000000000000ff00000000000000ff000000000000007bff00000000000000ff00000000000000ff00000000000000ff0000007aff00000000000000ff00000000000000ff00000000000000ff000084167eff00000000000000ff00000000000000ff00000000000000ff00000000000084161760081c9316911617177f0f000f000f000f000f000f000f000f000f000f000f000f000f000f000f000f007e0f000f000f000f000f000f000f000f000f000f000f000f000f000f000f000f8260081c169160041c1617807f30303030303030303030303030303030303030303030303030303030303030300190817f303030303030303030303030303030303030303030303030303030303030303011611124577f06060606060606060606060606060606060606060606060606060606060606068101808211611124577f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f9060041c16602781029080820460271490151715611124577f3030303030303030303030303030303030303030303030303030303030303030910101809111611124579056fe9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f00a164736f6c6343000825000a",
}

// ArbitrationModule is an auto generated Go binding around an Ethereum contract.
type ArbitrationModule struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *ArbitrationModule) GetABI() abi.ABI {
	return c.abi
}

// NewArbitrationModule creates a new instance of ArbitrationModule.
func NewArbitrationModule() *ArbitrationModule {
	parsed, err := ArbitrationModuleMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &ArbitrationModule{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *ArbitrationModule) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address registry_, uint256 bond_, uint64 assignTimeout_, uint64 ruleTimeout_) returns()
func (arbitrationModule *ArbitrationModule) PackConstructor(registry_ common.Address, bond_ *big.Int, assignTimeout_ uint64, ruleTimeout_ uint64) []byte {
	enc, err := arbitrationModule.abi.Pack("", registry_, bond_, assignTimeout_, ruleTimeout_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackMAXRULING is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x76eda3dc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_RULING() view returns(uint256)
func (arbitrationModule *ArbitrationModule) PackMAXRULING() []byte {
	enc, err := arbitrationModule.abi.Pack("MAX_RULING")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXRULING is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x76eda3dc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_RULING() view returns(uint256)
func (arbitrationModule *ArbitrationModule) TryPackMAXRULING() ([]byte, error) {
	return arbitrationModule.abi.Pack("MAX_RULING")
}

// UnpackMAXRULING is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x76eda3dc.
//
// Solidity: function MAX_RULING() view returns(uint256)
func (arbitrationModule *ArbitrationModule) UnpackMAXRULING(data []byte) (*big.Int, error) {
	out, err := arbitrationModule.abi.Unpack("MAX_RULING", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTIMEOUTWORKERBPS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xed8dda30.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function TIMEOUT_WORKER_BPS() view returns(uint256)
func (arbitrationModule *ArbitrationModule) PackTIMEOUTWORKERBPS() []byte {
	enc, err := arbitrationModule.abi.Pack("TIMEOUT_WORKER_BPS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTIMEOUTWORKERBPS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xed8dda30.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function TIMEOUT_WORKER_BPS() view returns(uint256)
func (arbitrationModule *ArbitrationModule) TryPackTIMEOUTWORKERBPS() ([]byte, error) {
	return arbitrationModule.abi.Pack("TIMEOUT_WORKER_BPS")
}

// UnpackTIMEOUTWORKERBPS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xed8dda30.
//
// Solidity: function TIMEOUT_WORKER_BPS() view returns(uint256)
func (arbitrationModule *ArbitrationModule) UnpackTIMEOUTWORKERBPS(data []byte) (*big.Int, error) {
	out, err := arbitrationModule.abi.Unpack("TIMEOUT_WORKER_BPS", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackAssignTimeout is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x768bd2a9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function assignTimeout() view returns(uint64)
func (arbitrationModule *ArbitrationModule) PackAssignTimeout() []byte {
	enc, err := arbitrationModule.abi.Pack("assignTimeout")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAssignTimeout is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x768bd2a9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function assignTimeout() view returns(uint64)
func (arbitrationModule *ArbitrationModule) TryPackAssignTimeout() ([]byte, error) {
	return arbitrationModule.abi.Pack("assignTimeout")
}

// UnpackAssignTimeout is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x768bd2a9.
//
// Solidity: function assignTimeout() view returns(uint64)
func (arbitrationModule *ArbitrationModule) UnpackAssignTimeout(data []byte) (uint64, error) {
	out, err := arbitrationModule.abi.Unpack("assignTimeout", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackBond is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x64c9ec6f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function bond() view returns(uint256)
func (arbitrationModule *ArbitrationModule) PackBond() []byte {
	enc, err := arbitrationModule.abi.Pack("bond")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBond is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x64c9ec6f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function bond() view returns(uint256)
func (arbitrationModule *ArbitrationModule) TryPackBond() ([]byte, error) {
	return arbitrationModule.abi.Pack("bond")
}

// UnpackBond is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x64c9ec6f.
//
// Solidity: function bond() view returns(uint256)
func (arbitrationModule *ArbitrationModule) UnpackBond(data []byte) (*big.Int, error) {
	out, err := arbitrationModule.abi.Unpack("bond", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDispute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x86d6282c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function dispute(uint256 disputeId) view returns(((address,address,address,uint256,address,uint256),address,address,address,uint64,uint8,bool))
func (arbitrationModule *ArbitrationModule) PackDispute(disputeId *big.Int) []byte {
	enc, err := arbitrationModule.abi.Pack("dispute", disputeId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDispute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x86d6282c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function dispute(uint256 disputeId) view returns(((address,address,address,uint256,address,uint256),address,address,address,uint64,uint8,bool))
func (arbitrationModule *ArbitrationModule) TryPackDispute(disputeId *big.Int) ([]byte, error) {
	return arbitrationModule.abi.Pack("dispute", disputeId)
}

// UnpackDispute is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x86d6282c.
//
// Solidity: function dispute(uint256 disputeId) view returns(((address,address,address,uint256,address,uint256),address,address,address,uint64,uint8,bool))
func (arbitrationModule *ArbitrationModule) UnpackDispute(data []byte) (ArbitrationModuleDisputeRecord, error) {
	out, err := arbitrationModule.abi.Unpack("dispute", data)
	if err != nil {
		return *new(ArbitrationModuleDisputeRecord), err
	}
	out0 := *abi.ConvertType(out[0], new(ArbitrationModuleDisputeRecord)).(*ArbitrationModuleDisputeRecord)
	return out0, nil
}

// PackExternalDispute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7bd8276d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function externalDispute(address arbitrator, uint256 externalId) view returns(bytes32 taskId)
func (arbitrationModule *ArbitrationModule) PackExternalDispute(arbitrator common.Address, externalId *big.Int) []byte {
	enc, err := arbitrationModule.abi.Pack("externalDispute", arbitrator, externalId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExternalDispute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7bd8276d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function externalDispute(address arbitrator, uint256 externalId) view returns(bytes32 taskId)
func (arbitrationModule *ArbitrationModule) TryPackExternalDispute(arbitrator common.Address, externalId *big.Int) ([]byte, error) {
	return arbitrationModule.abi.Pack("externalDispute", arbitrator, externalId)
}

// UnpackExternalDispute is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7bd8276d.
//
// Solidity: function externalDispute(address arbitrator, uint256 externalId) view returns(bytes32 taskId)
func (arbitrationModule *ArbitrationModule) UnpackExternalDispute(data []byte) ([32]byte, error) {
	out, err := arbitrationModule.abi.Unpack("externalDispute", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackOpen is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0d1909f3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function open(bytes32 taskId, (address,address,address,uint256,address,uint256) terms, bytes32 termsHash) returns()
func (arbitrationModule *ArbitrationModule) PackOpen(taskId [32]byte, terms DisputeTerms, termsHash [32]byte) []byte {
	enc, err := arbitrationModule.abi.Pack("open", taskId, terms, termsHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOpen is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0d1909f3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function open(bytes32 taskId, (address,address,address,uint256,address,uint256) terms, bytes32 termsHash) returns()
func (arbitrationModule *ArbitrationModule) TryPackOpen(taskId [32]byte, terms DisputeTerms, termsHash [32]byte) ([]byte, error) {
	return arbitrationModule.abi.Pack("open", taskId, terms, termsHash)
}

// PackProposeArbitrator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3806fead.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function proposeArbitrator(uint256 disputeId, address arbitrator) returns()
func (arbitrationModule *ArbitrationModule) PackProposeArbitrator(disputeId *big.Int, arbitrator common.Address) []byte {
	enc, err := arbitrationModule.abi.Pack("proposeArbitrator", disputeId, arbitrator)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackProposeArbitrator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3806fead.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function proposeArbitrator(uint256 disputeId, address arbitrator) returns()
func (arbitrationModule *ArbitrationModule) TryPackProposeArbitrator(disputeId *big.Int, arbitrator common.Address) ([]byte, error) {
	return arbitrationModule.abi.Pack("proposeArbitrator", disputeId, arbitrator)
}

// PackRaiseWithArbitrator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6d14031.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function raiseWithArbitrator(uint256 disputeId, bytes extraData) payable returns(uint256 externalId)
func (arbitrationModule *ArbitrationModule) PackRaiseWithArbitrator(disputeId *big.Int, extraData []byte) []byte {
	enc, err := arbitrationModule.abi.Pack("raiseWithArbitrator", disputeId, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRaiseWithArbitrator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6d14031.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function raiseWithArbitrator(uint256 disputeId, bytes extraData) payable returns(uint256 externalId)
func (arbitrationModule *ArbitrationModule) TryPackRaiseWithArbitrator(disputeId *big.Int, extraData []byte) ([]byte, error) {
	return arbitrationModule.abi.Pack("raiseWithArbitrator", disputeId, extraData)
}

// UnpackRaiseWithArbitrator is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb6d14031.
//
// Solidity: function raiseWithArbitrator(uint256 disputeId, bytes extraData) payable returns(uint256 externalId)
func (arbitrationModule *ArbitrationModule) UnpackRaiseWithArbitrator(data []byte) (*big.Int, error) {
	out, err := arbitrationModule.abi.Unpack("raiseWithArbitrator", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRegistry is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7b103999.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function registry() view returns(address)
func (arbitrationModule *ArbitrationModule) PackRegistry() []byte {
	enc, err := arbitrationModule.abi.Pack("registry")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRegistry is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7b103999.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function registry() view returns(address)
func (arbitrationModule *ArbitrationModule) TryPackRegistry() ([]byte, error) {
	return arbitrationModule.abi.Pack("registry")
}

// UnpackRegistry is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7b103999.
//
// Solidity: function registry() view returns(address)
func (arbitrationModule *ArbitrationModule) UnpackRegistry(data []byte) (common.Address, error) {
	out, err := arbitrationModule.abi.Unpack("registry", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackResolveTimedOut is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x35dc5551.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function resolveTimedOut(uint256 disputeId) returns()
func (arbitrationModule *ArbitrationModule) PackResolveTimedOut(disputeId *big.Int) []byte {
	enc, err := arbitrationModule.abi.Pack("resolveTimedOut", disputeId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackResolveTimedOut is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x35dc5551.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function resolveTimedOut(uint256 disputeId) returns()
func (arbitrationModule *ArbitrationModule) TryPackResolveTimedOut(disputeId *big.Int) ([]byte, error) {
	return arbitrationModule.abi.Pack("resolveTimedOut", disputeId)
}

// PackRule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x311a6c56.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function rule(uint256 _disputeID, uint256 _ruling) returns()
func (arbitrationModule *ArbitrationModule) PackRule(disputeID *big.Int, ruling *big.Int) []byte {
	enc, err := arbitrationModule.abi.Pack("rule", disputeID, ruling)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRule is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x311a6c56.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function rule(uint256 _disputeID, uint256 _ruling) returns()
func (arbitrationModule *ArbitrationModule) TryPackRule(disputeID *big.Int, ruling *big.Int) ([]byte, error) {
	return arbitrationModule.abi.Pack("rule", disputeID, ruling)
}

// PackRuleTimeout is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x88de0ab6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function ruleTimeout() view returns(uint64)
func (arbitrationModule *ArbitrationModule) PackRuleTimeout() []byte {
	enc, err := arbitrationModule.abi.Pack("ruleTimeout")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRuleTimeout is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x88de0ab6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function ruleTimeout() view returns(uint64)
func (arbitrationModule *ArbitrationModule) TryPackRuleTimeout() ([]byte, error) {
	return arbitrationModule.abi.Pack("ruleTimeout")
}

// UnpackRuleTimeout is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x88de0ab6.
//
// Solidity: function ruleTimeout() view returns(uint64)
func (arbitrationModule *ArbitrationModule) UnpackRuleTimeout(data []byte) (uint64, error) {
	out, err := arbitrationModule.abi.Unpack("ruleTimeout", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackSubmitEvidence is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa6a7f0eb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function submitEvidence(uint256 disputeId, string evidenceCid) returns()
func (arbitrationModule *ArbitrationModule) PackSubmitEvidence(disputeId *big.Int, evidenceCid string) []byte {
	enc, err := arbitrationModule.abi.Pack("submitEvidence", disputeId, evidenceCid)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSubmitEvidence is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa6a7f0eb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function submitEvidence(uint256 disputeId, string evidenceCid) returns()
func (arbitrationModule *ArbitrationModule) TryPackSubmitEvidence(disputeId *big.Int, evidenceCid string) ([]byte, error) {
	return arbitrationModule.abi.Pack("submitEvidence", disputeId, evidenceCid)
}

// ArbitrationModuleArbitrationRefused represents a ArbitrationRefused event raised by the ArbitrationModule contract.
type ArbitrationModuleArbitrationRefused struct {
	DisputeId  *big.Int
	Arbitrator common.Address
	Raw        *types.Log // Blockchain specific contextual infos
}

const ArbitrationModuleArbitrationRefusedEventName = "ArbitrationRefused"

// ContractEventName returns the user-defined event name.
func (ArbitrationModuleArbitrationRefused) ContractEventName() string {
	return ArbitrationModuleArbitrationRefusedEventName
}

// UnpackArbitrationRefusedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ArbitrationRefused(uint256 indexed disputeId, address indexed arbitrator)
func (arbitrationModule *ArbitrationModule) UnpackArbitrationRefusedEvent(log *types.Log) (*ArbitrationModuleArbitrationRefused, error) {
	event := "ArbitrationRefused"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != arbitrationModule.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ArbitrationModuleArbitrationRefused)
	if len(log.Data) > 0 {
		if err := arbitrationModule.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range arbitrationModule.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ArbitrationModuleArbitratorAssigned represents a ArbitratorAssigned event raised by the ArbitrationModule contract.
type ArbitrationModuleArbitratorAssigned struct {
	DisputeId  *big.Int
	Arbitrator common.Address
	Raw        *types.Log // Blockchain specific contextual infos
}

const ArbitrationModuleArbitratorAssignedEventName = "ArbitratorAssigned"

// ContractEventName returns the user-defined event name.
func (ArbitrationModuleArbitratorAssigned) ContractEventName() string {
	return ArbitrationModuleArbitratorAssignedEventName
}

// UnpackArbitratorAssignedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ArbitratorAssigned(uint256 indexed disputeId, address indexed arbitrator)
func (arbitrationModule *ArbitrationModule) UnpackArbitratorAssignedEvent(log *types.Log) (*ArbitrationModuleArbitratorAssigned, error) {
	event := "ArbitratorAssigned"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != arbitrationModule.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ArbitrationModuleArbitratorAssigned)
	if len(log.Data) > 0 {
		if err := arbitrationModule.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range arbitrationModule.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ArbitrationModuleArbitratorProposed represents a ArbitratorProposed event raised by the ArbitrationModule contract.
type ArbitrationModuleArbitratorProposed struct {
	DisputeId  *big.Int
	Party      common.Address
	Arbitrator common.Address
	Raw        *types.Log // Blockchain specific contextual infos
}

const ArbitrationModuleArbitratorProposedEventName = "ArbitratorProposed"

// ContractEventName returns the user-defined event name.
func (ArbitrationModuleArbitratorProposed) ContractEventName() string {
	return ArbitrationModuleArbitratorProposedEventName
}

// UnpackArbitratorProposedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ArbitratorProposed(uint256 indexed disputeId, address indexed party, address indexed arbitrator)
func (arbitrationModule *ArbitrationModule) UnpackArbitratorProposedEvent(log *types.Log) (*ArbitrationModuleArbitratorProposed, error) {
	event := "ArbitratorProposed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != arbitrationModule.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ArbitrationModuleArbitratorProposed)
	if len(log.Data) > 0 {
		if err := arbitrationModule.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range arbitrationModule.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ArbitrationModuleDispute represents a Dispute event raised by the ArbitrationModule contract.
type ArbitrationModuleDispute struct {
	Arbitrator      common.Address
	DisputeID       *big.Int
	MetaEvidenceID  *big.Int
	EvidenceGroupID *big.Int
	Raw             *types.Log // Blockchain specific contextual infos
}

const ArbitrationModuleDisputeEventName = "Dispute"

// ContractEventName returns the user-defined event name.
func (ArbitrationModuleDispute) ContractEventName() string {
	return ArbitrationModuleDisputeEventName
}

// UnpackDisputeEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Dispute(address indexed _arbitrator, uint256 indexed _disputeID, uint256 _metaEvidenceID, uint256 _evidenceGroupID)
func (arbitrationModule *ArbitrationModule) UnpackDisputeEvent(log *types.Log) (*ArbitrationModuleDispute, error) {
	event := "Dispute"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != arbitrationModule.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ArbitrationModuleDispute)
	if len(log.Data) > 0 {
		if err := arbitrationModule.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range arbitrationModule.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ArbitrationModuleDisputeOpened represents a DisputeOpened event raised by the ArbitrationModule contract.
type ArbitrationModuleDisputeOpened struct {
	DisputeId *big.Int
	Opener    common.Address
	Escrow    *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const ArbitrationModuleDisputeOpenedEventName = "DisputeOpened"

// ContractEventName returns the user-defined event name.
func (ArbitrationModuleDisputeOpened) ContractEventName() string {
	return ArbitrationModuleDisputeOpenedEventName
}

// UnpackDisputeOpenedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DisputeOpened(uint256 indexed disputeId, address indexed opener, uint256 escrow)
func (arbitrationModule *ArbitrationModule) UnpackDisputeOpenedEvent(log *types.Log) (*ArbitrationModuleDisputeOpened, error) {
	event := "DisputeOpened"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != arbitrationModule.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ArbitrationModuleDisputeOpened)
	if len(log.Data) > 0 {
		if err := arbitrationModule.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range arbitrationModule.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ArbitrationModuleDisputeResolved represents a DisputeResolved event raised by the ArbitrationModule contract.
type ArbitrationModuleDisputeResolved struct {
	DisputeId *big.Int
	WorkerBps *big.Int
	TimedOut  bool
	Raw       *types.Log // Blockchain specific contextual infos
}

const ArbitrationModuleDisputeResolvedEventName = "DisputeResolved"

// ContractEventName returns the user-defined event name.
func (ArbitrationModuleDisputeResolved) ContractEventName() string {
	return ArbitrationModuleDisputeResolvedEventName
}

// UnpackDisputeResolvedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DisputeResolved(uint256 indexed disputeId, uint256 workerBps, bool timedOut)
func (arbitrationModule *ArbitrationModule) UnpackDisputeResolvedEvent(log *types.Log) (*ArbitrationModuleDisputeResolved, error) {
	event := "DisputeResolved"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != arbitrationModule.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ArbitrationModuleDisputeResolved)
	if len(log.Data) > 0 {
		if err := arbitrationModule.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range arbitrationModule.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ArbitrationModuleEvidence represents a Evidence event raised by the ArbitrationModule contract.
type ArbitrationModuleEvidence struct {
	Arbitrator      common.Address
	EvidenceGroupID *big.Int
	Party           common.Address
	Evidence        string
	Raw             *types.Log // Blockchain specific contextual infos
}

const ArbitrationModuleEvidenceEventName = "Evidence"

// ContractEventName returns the user-defined event name.
func (ArbitrationModuleEvidence) ContractEventName() string {
	return ArbitrationModuleEvidenceEventName
}

// UnpackEvidenceEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Evidence(address indexed _arbitrator, uint256 indexed _evidenceGroupID, address indexed _party, string _evidence)
func (arbitrationModule *ArbitrationModule) UnpackEvidenceEvent(log *types.Log) (*ArbitrationModuleEvidence, error) {
	event := "Evidence"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != arbitrationModule.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ArbitrationModuleEvidence)
	if len(log.Data) > 0 {
		if err := arbitrationModule.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range arbitrationModule.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ArbitrationModuleMetaEvidence represents a MetaEvidence event raised by the ArbitrationModule contract.
type ArbitrationModuleMetaEvidence struct {
	MetaEvidenceID *big.Int
	Evidence       string
	Raw            *types.Log // Blockchain specific contextual infos
}

const ArbitrationModuleMetaEvidenceEventName = "MetaEvidence"

// ContractEventName returns the user-defined event name.
func (ArbitrationModuleMetaEvidence) ContractEventName() string {
	return ArbitrationModuleMetaEvidenceEventName
}

// UnpackMetaEvidenceEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event MetaEvidence(uint256 indexed _metaEvidenceID, string _evidence)
func (arbitrationModule *ArbitrationModule) UnpackMetaEvidenceEvent(log *types.Log) (*ArbitrationModuleMetaEvidence, error) {
	event := "MetaEvidence"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != arbitrationModule.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ArbitrationModuleMetaEvidence)
	if len(log.Data) > 0 {
		if err := arbitrationModule.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range arbitrationModule.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// ArbitrationModuleRuling represents a Ruling event raised by the ArbitrationModule contract.
type ArbitrationModuleRuling struct {
	Arbitrator common.Address
	DisputeID  *big.Int
	Ruling     *big.Int
	Raw        *types.Log // Blockchain specific contextual infos
}

const ArbitrationModuleRulingEventName = "Ruling"

// ContractEventName returns the user-defined event name.
func (ArbitrationModuleRuling) ContractEventName() string {
	return ArbitrationModuleRulingEventName
}

// UnpackRulingEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Ruling(address indexed _arbitrator, uint256 indexed _disputeID, uint256 _ruling)
func (arbitrationModule *ArbitrationModule) UnpackRulingEvent(log *types.Log) (*ArbitrationModuleRuling, error) {
	event := "Ruling"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != arbitrationModule.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ArbitrationModuleRuling)
	if len(log.Data) > 0 {
		if err := arbitrationModule.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range arbitrationModule.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (arbitrationModule *ArbitrationModule) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["BadArbitrator"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackBadArbitratorError(raw[4:])
	}
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["BadRuling"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackBadRulingError(raw[4:])
	}
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["CannotRaise"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackCannotRaiseError(raw[4:])
	}
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["EmptyEvidence"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackEmptyEvidenceError(raw[4:])
	}
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["ExternalIdTaken"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackExternalIdTakenError(raw[4:])
	}
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["NotArbitrator"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackNotArbitratorError(raw[4:])
	}
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["NotParty"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackNotPartyError(raw[4:])
	}
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["NotRegistry"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackNotRegistryError(raw[4:])
	}
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["NotTimedOut"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackNotTimedOutError(raw[4:])
	}
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["ReentrancyGuardReentrantCall"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackReentrancyGuardReentrantCallError(raw[4:])
	}
	if bytes.Equal(raw[:4], arbitrationModule.abi.Errors["WrongStage"].ID.Bytes()[:4]) {
		return arbitrationModule.UnpackWrongStageError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// ArbitrationModuleBadArbitrator represents a BadArbitrator error raised by the ArbitrationModule contract.
type ArbitrationModuleBadArbitrator struct {
	Arbitrator common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadArbitrator(address arbitrator)
func ArbitrationModuleBadArbitratorErrorID() common.Hash {
	return common.HexToHash("0x37132c95573ed82cfdee3fe1a0527f31d232c9e409ba4c9a1acb44b5d2649011")
}

// UnpackBadArbitratorError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadArbitrator(address arbitrator)
func (arbitrationModule *ArbitrationModule) UnpackBadArbitratorError(raw []byte) (*ArbitrationModuleBadArbitrator, error) {
	out := new(ArbitrationModuleBadArbitrator)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "BadArbitrator", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ArbitrationModuleBadRuling represents a BadRuling error raised by the ArbitrationModule contract.
type ArbitrationModuleBadRuling struct {
	Ruling *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadRuling(uint256 ruling)
func ArbitrationModuleBadRulingErrorID() common.Hash {
	return common.HexToHash("0xeb742e9426eed6396d94629d933387f472e08bbd78454f0443e21b878c560986")
}

// UnpackBadRulingError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadRuling(uint256 ruling)
func (arbitrationModule *ArbitrationModule) UnpackBadRulingError(raw []byte) (*ArbitrationModuleBadRuling, error) {
	out := new(ArbitrationModuleBadRuling)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "BadRuling", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ArbitrationModuleCannotRaise represents a CannotRaise error raised by the ArbitrationModule contract.
type ArbitrationModuleCannotRaise struct {
	Arbitrator common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error CannotRaise(address arbitrator)
func ArbitrationModuleCannotRaiseErrorID() common.Hash {
	return common.HexToHash("0xb6b9d032832170faf5ebf70aadc9f688d5d8ff1e946f4aa2e040cdf53330815d")
}

// UnpackCannotRaiseError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error CannotRaise(address arbitrator)
func (arbitrationModule *ArbitrationModule) UnpackCannotRaiseError(raw []byte) (*ArbitrationModuleCannotRaise, error) {
	out := new(ArbitrationModuleCannotRaise)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "CannotRaise", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ArbitrationModuleEmptyEvidence represents a EmptyEvidence error raised by the ArbitrationModule contract.
type ArbitrationModuleEmptyEvidence struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyEvidence()
func ArbitrationModuleEmptyEvidenceErrorID() common.Hash {
	return common.HexToHash("0xcb3a13f70714fd25532b84ee06920e1865d6d563b88137c56e08dc73482ce899")
}

// UnpackEmptyEvidenceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyEvidence()
func (arbitrationModule *ArbitrationModule) UnpackEmptyEvidenceError(raw []byte) (*ArbitrationModuleEmptyEvidence, error) {
	out := new(ArbitrationModuleEmptyEvidence)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "EmptyEvidence", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ArbitrationModuleExternalIdTaken represents a ExternalIdTaken error raised by the ArbitrationModule contract.
type ArbitrationModuleExternalIdTaken struct {
	ExternalId *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ExternalIdTaken(uint256 externalId)
func ArbitrationModuleExternalIdTakenErrorID() common.Hash {
	return common.HexToHash("0x932d8b50efd32bbfa1e279f108d3a8818361c4964707c55f453a7365cd758209")
}

// UnpackExternalIdTakenError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ExternalIdTaken(uint256 externalId)
func (arbitrationModule *ArbitrationModule) UnpackExternalIdTakenError(raw []byte) (*ArbitrationModuleExternalIdTaken, error) {
	out := new(ArbitrationModuleExternalIdTaken)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "ExternalIdTaken", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ArbitrationModuleNotArbitrator represents a NotArbitrator error raised by the ArbitrationModule contract.
type ArbitrationModuleNotArbitrator struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotArbitrator(address caller)
func ArbitrationModuleNotArbitratorErrorID() common.Hash {
	return common.HexToHash("0x0d5fade8be1c2a67e0bd5494be5cb5c9ecd31a6af3a2d6f3d2df7ce3fe9e771c")
}

// UnpackNotArbitratorError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotArbitrator(address caller)
func (arbitrationModule *ArbitrationModule) UnpackNotArbitratorError(raw []byte) (*ArbitrationModuleNotArbitrator, error) {
	out := new(ArbitrationModuleNotArbitrator)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "NotArbitrator", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ArbitrationModuleNotParty represents a NotParty error raised by the ArbitrationModule contract.
type ArbitrationModuleNotParty struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotParty(address caller)
func ArbitrationModuleNotPartyErrorID() common.Hash {
	return common.HexToHash("0x20b9b3408989ca42d5fa2663f15008e4a0eb67196888f609b60bc67db38ad0ab")
}

// UnpackNotPartyError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotParty(address caller)
func (arbitrationModule *ArbitrationModule) UnpackNotPartyError(raw []byte) (*ArbitrationModuleNotParty, error) {
	out := new(ArbitrationModuleNotParty)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "NotParty", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ArbitrationModuleNotRegistry represents a NotRegistry error raised by the ArbitrationModule contract.
type ArbitrationModuleNotRegistry struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotRegistry(address caller)
func ArbitrationModuleNotRegistryErrorID() common.Hash {
	return common.HexToHash("0x631a294a41a730c8b83fc0d8fe9f45ed8336003d618d1d97b39459e4ec1deb78")
}

// UnpackNotRegistryError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotRegistry(address caller)
func (arbitrationModule *ArbitrationModule) UnpackNotRegistryError(raw []byte) (*ArbitrationModuleNotRegistry, error) {
	out := new(ArbitrationModuleNotRegistry)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "NotRegistry", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ArbitrationModuleNotTimedOut represents a NotTimedOut error raised by the ArbitrationModule contract.
type ArbitrationModuleNotTimedOut struct {
	TimesOutAt uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotTimedOut(uint64 timesOutAt)
func ArbitrationModuleNotTimedOutErrorID() common.Hash {
	return common.HexToHash("0x417c0fb89718f6fb2be930678774885bf06cf1a3db6820961d6ab0d65d2ba11b")
}

// UnpackNotTimedOutError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotTimedOut(uint64 timesOutAt)
func (arbitrationModule *ArbitrationModule) UnpackNotTimedOutError(raw []byte) (*ArbitrationModuleNotTimedOut, error) {
	out := new(ArbitrationModuleNotTimedOut)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "NotTimedOut", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ArbitrationModuleReentrancyGuardReentrantCall represents a ReentrancyGuardReentrantCall error raised by the ArbitrationModule contract.
type ArbitrationModuleReentrancyGuardReentrantCall struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ReentrancyGuardReentrantCall()
func ArbitrationModuleReentrancyGuardReentrantCallErrorID() common.Hash {
	return common.HexToHash("0x3ee5aeb571de7fc460830b4d0017439a1ca56fb0bc39062227ade4fe4a24c1ca")
}

// UnpackReentrancyGuardReentrantCallError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ReentrancyGuardReentrantCall()
func (arbitrationModule *ArbitrationModule) UnpackReentrancyGuardReentrantCallError(raw []byte) (*ArbitrationModuleReentrancyGuardReentrantCall, error) {
	out := new(ArbitrationModuleReentrancyGuardReentrantCall)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "ReentrancyGuardReentrantCall", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ArbitrationModuleWrongStage represents a WrongStage error raised by the ArbitrationModule contract.
type ArbitrationModuleWrongStage struct {
	DisputeId *big.Int
	Status    uint8
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WrongStage(uint256 disputeId, uint8 status)
func ArbitrationModuleWrongStageErrorID() common.Hash {
	return common.HexToHash("0xadeb3ec5ea4c7ebe93c1812d4dea6be6fc7d11849ed0ca983ef650589992abdf")
}

// UnpackWrongStageError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WrongStage(uint256 disputeId, uint8 status)
func (arbitrationModule *ArbitrationModule) UnpackWrongStageError(raw []byte) (*ArbitrationModuleWrongStage, error) {
	out := new(ArbitrationModuleWrongStage)
	if err := arbitrationModule.abi.UnpackIntoInterface(out, "WrongStage", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// IdentityLinkMetaData contains all meta data concerning the IdentityLink contract.
var IdentityLinkMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"AlreadyRegistered\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"BadRecord\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"NotRegistered\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"inboxKey\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"peerId\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"linkHash\",\"type\":\"bytes32\"}],\"name\":\"LinkRegistered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"linkHash\",\"type\":\"bytes32\"}],\"name\":\"LinkRevoked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"inboxKey\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"peerId\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"linkHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"previousLinkHash\",\"type\":\"bytes32\"}],\"name\":\"LinkRotated\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"MAX_PEER_ID\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"recordOf\",\"outputs\":[{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"inboxKey\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"linkHash\",\"type\":\"bytes32\"},{\"internalType\":\"uint64\",\"name\":\"updatedAt\",\"type\":\"uint64\"},{\"internalType\":\"string\",\"name\":\"peerId\",\"type\":\"string\"}],\"internalType\":\"structIdentityLink.Record\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"inboxKey\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"peerId\",\"type\":\"string\"},{\"internalType\":\"bytes32\",\"name\":\"linkHash\",\"type\":\"bytes32\"}],\"name\":\"register\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"revoke\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"inboxKey\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"peerId\",\"type\":\"string\"},{\"internalType\":\"bytes32\",\"name\":\"linkHash\",\"type\":\"bytes32\"}],\"name\":\"rotate\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "014aa9a4ce97e57d639a72291e6c877475",
	Bin: "0x608080604052346015576106e6908161001a8239f35b5f80fdfe60806040526004361015610011575f80fd5b5f3560e01c8063188cc4eb1461035a57806343fe5de21461033f57806355bf94fc146102b8578063b6549f75146101df5763c06ac6a314610050575f80fd5b346101db5760203660031901126101db576004356001600160a01b038116908190036101db576060806040516100858161049e565b5f81525f60208201525f604082015201525f525f60205260405f206040516100ac8161049e565b815481526001820154916020820192835260036001600160401b0360028301541691604084019283520190604051915f908054906100e98261044b565b80865291600181169081156101b0575060011461016b575b8660c0876020886001600160401b038961011d838b03846104cd565b606085019283526040519687958587525185870152516040860152511660608401525160808084015280519182918260a0860152018484015e5f828201840152601f01601f19168101030190f35b5f908152602081209092505b81831061019657505082016020908101906001600160401b0390610101565b600181602092949394548385890101520191019190610177565b60ff191660208088019190915292151560051b8601830193506001600160401b039291506101019050565b5f80fd5b346101db575f3660031901126101db57335f525f602052600160405f20015480156102a557335f525f602052600360405f205f81555f60018201555f60028201550161022b815461044b565b9081610261575b826040519081527f0e562c7d7a39ca61116d636cbced37ef108e17ec4937417618f59184d4d672f660203392a2005b81601f5f93116001146102785750555b8180610232565b8183526020832061029591601f0160051c84190190600101610483565b8082528160208120915555610271565b63bfc6c33760e01b5f523360045260245ffd5b346101db576102c6366103d5565b9190335f525f602052600160405f20015461032c5761031e8261030c85847fee81e46c393fec32fe51ea72f64b1644571aac0cedb2e65e791b6f209adb5d3996896104ee565b6040519260408452604084019161042b565b9260208201528033930390a3005b6345ed80e960e01b5f523360045260245ffd5b346101db575f3660031901126101db57602060405160808152f35b346101db57610368366103d5565b9190335f525f602052600160405f20015480156102a5576103c2836103b086857f0f7b65adaa4e3c9c00204a8151a94aaac0948c942ebef22f5f46575e7e8d515d978a6104ee565b6040519360608552606085019161042b565b93602083015260408201528033930390a3005b60606003198201126101db57600435916024356001600160401b0381116101db57826023820112156101db578060040135926001600160401b0384116101db57602484830101116101db57602401919060443590565b908060209392818452848401375f828201840152601f01601f1916010190565b90600182811c92168015610479575b602083101461046557565b634e487b7160e01b5f52602260045260245ffd5b91607f169161045a565b5f5b82811061049157505050565b5f82820155600101610485565b608081019081106001600160401b038211176104b957604052565b634e487b7160e01b5f52604160045260245ffd5b90601f801991011681019081106001600160401b038211176104b957604052565b90919392811580156106d1575b80156106c9575b80156106bf575b6106b1576040519161051a8361049e565b82526020820190815260408201906001600160401b03421682526001600160401b0386116104b9576040519561055a601f8201601f1916602001886104cd565b80875236818601116101db576020815f92600397838b01378801015260608301958652335f525f60205260405f20925183555160018301556001600160401b03600283019151166001600160401b03198254161790550191519182516001600160401b0381116104b9576105ce825461044b565b601f811161066e575b506020601f821160011461061057819293945f92610605575b50508160011b915f199060031b1c1916179055565b015190505f806105f0565b601f19821690835f52805f20915f5b8181106106565750958360019596971061063e575b505050811b019055565b01515f1960f88460031b161c191690555f8080610634565b9192602060018192868b01518155019401920161061f565b818111156105d7576106a390835f5260205f2090601f840160051c90602085106106a9575b601f82910160051c039101610483565b5f6105d7565b5f9150610693565b620defe360e41b5f5260045ffd5b5060808511610509565b508415610502565b5080156104fb56fea164736f6c6343000825000a",
}

// IdentityLink is an auto generated Go binding around an Ethereum contract.
type IdentityLink struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *IdentityLink) GetABI() abi.ABI {
	return c.abi
}

// NewIdentityLink creates a new instance of IdentityLink.
func NewIdentityLink() *IdentityLink {
	parsed, err := IdentityLinkMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &IdentityLink{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *IdentityLink) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackMAXPEERID is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x43fe5de2.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_PEER_ID() view returns(uint256)
func (identityLink *IdentityLink) PackMAXPEERID() []byte {
	enc, err := identityLink.abi.Pack("MAX_PEER_ID")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXPEERID is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x43fe5de2.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_PEER_ID() view returns(uint256)
func (identityLink *IdentityLink) TryPackMAXPEERID() ([]byte, error) {
	return identityLink.abi.Pack("MAX_PEER_ID")
}

// UnpackMAXPEERID is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x43fe5de2.
//
// Solidity: function MAX_PEER_ID() view returns(uint256)
func (identityLink *IdentityLink) UnpackMAXPEERID(data []byte) (*big.Int, error) {
	out, err := identityLink.abi.Unpack("MAX_PEER_ID", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRecordOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc06ac6a3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function recordOf(address account) view returns((bytes32,bytes32,uint64,string))
func (identityLink *IdentityLink) PackRecordOf(account common.Address) []byte {
	enc, err := identityLink.abi.Pack("recordOf", account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRecordOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc06ac6a3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function recordOf(address account) view returns((bytes32,bytes32,uint64,string))
func (identityLink *IdentityLink) TryPackRecordOf(account common.Address) ([]byte, error) {
	return identityLink.abi.Pack("recordOf", account)
}

// UnpackRecordOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc06ac6a3.
//
// Solidity: function recordOf(address account) view returns((bytes32,bytes32,uint64,string))
func (identityLink *IdentityLink) UnpackRecordOf(data []byte) (IdentityLinkRecord, error) {
	out, err := identityLink.abi.Unpack("recordOf", data)
	if err != nil {
		return *new(IdentityLinkRecord), err
	}
	out0 := *abi.ConvertType(out[0], new(IdentityLinkRecord)).(*IdentityLinkRecord)
	return out0, nil
}

// PackRegister is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x55bf94fc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function register(bytes32 inboxKey, string peerId, bytes32 linkHash) returns()
func (identityLink *IdentityLink) PackRegister(inboxKey [32]byte, peerId string, linkHash [32]byte) []byte {
	enc, err := identityLink.abi.Pack("register", inboxKey, peerId, linkHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRegister is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x55bf94fc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function register(bytes32 inboxKey, string peerId, bytes32 linkHash) returns()
func (identityLink *IdentityLink) TryPackRegister(inboxKey [32]byte, peerId string, linkHash [32]byte) ([]byte, error) {
	return identityLink.abi.Pack("register", inboxKey, peerId, linkHash)
}

// PackRevoke is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6549f75.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function revoke() returns()
func (identityLink *IdentityLink) PackRevoke() []byte {
	enc, err := identityLink.abi.Pack("revoke")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRevoke is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6549f75.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function revoke() returns()
func (identityLink *IdentityLink) TryPackRevoke() ([]byte, error) {
	return identityLink.abi.Pack("revoke")
}

// PackRotate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x188cc4eb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function rotate(bytes32 inboxKey, string peerId, bytes32 linkHash) returns()
func (identityLink *IdentityLink) PackRotate(inboxKey [32]byte, peerId string, linkHash [32]byte) []byte {
	enc, err := identityLink.abi.Pack("rotate", inboxKey, peerId, linkHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRotate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x188cc4eb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function rotate(bytes32 inboxKey, string peerId, bytes32 linkHash) returns()
func (identityLink *IdentityLink) TryPackRotate(inboxKey [32]byte, peerId string, linkHash [32]byte) ([]byte, error) {
	return identityLink.abi.Pack("rotate", inboxKey, peerId, linkHash)
}

// IdentityLinkLinkRegistered represents a LinkRegistered event raised by the IdentityLink contract.
type IdentityLinkLinkRegistered struct {
	Account  common.Address
	InboxKey [32]byte
	PeerId   string
	LinkHash [32]byte
	Raw      *types.Log // Blockchain specific contextual infos
}

const IdentityLinkLinkRegisteredEventName = "LinkRegistered"

// ContractEventName returns the user-defined event name.
func (IdentityLinkLinkRegistered) ContractEventName() string {
	return IdentityLinkLinkRegisteredEventName
}

// UnpackLinkRegisteredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event LinkRegistered(address indexed account, bytes32 indexed inboxKey, string peerId, bytes32 linkHash)
func (identityLink *IdentityLink) UnpackLinkRegisteredEvent(log *types.Log) (*IdentityLinkLinkRegistered, error) {
	event := "LinkRegistered"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != identityLink.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(IdentityLinkLinkRegistered)
	if len(log.Data) > 0 {
		if err := identityLink.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range identityLink.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// IdentityLinkLinkRevoked represents a LinkRevoked event raised by the IdentityLink contract.
type IdentityLinkLinkRevoked struct {
	Account  common.Address
	LinkHash [32]byte
	Raw      *types.Log // Blockchain specific contextual infos
}

const IdentityLinkLinkRevokedEventName = "LinkRevoked"

// ContractEventName returns the user-defined event name.
func (IdentityLinkLinkRevoked) ContractEventName() string {
	return IdentityLinkLinkRevokedEventName
}

// UnpackLinkRevokedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event LinkRevoked(address indexed account, bytes32 linkHash)
func (identityLink *IdentityLink) UnpackLinkRevokedEvent(log *types.Log) (*IdentityLinkLinkRevoked, error) {
	event := "LinkRevoked"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != identityLink.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(IdentityLinkLinkRevoked)
	if len(log.Data) > 0 {
		if err := identityLink.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range identityLink.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// IdentityLinkLinkRotated represents a LinkRotated event raised by the IdentityLink contract.
type IdentityLinkLinkRotated struct {
	Account          common.Address
	InboxKey         [32]byte
	PeerId           string
	LinkHash         [32]byte
	PreviousLinkHash [32]byte
	Raw              *types.Log // Blockchain specific contextual infos
}

const IdentityLinkLinkRotatedEventName = "LinkRotated"

// ContractEventName returns the user-defined event name.
func (IdentityLinkLinkRotated) ContractEventName() string {
	return IdentityLinkLinkRotatedEventName
}

// UnpackLinkRotatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event LinkRotated(address indexed account, bytes32 indexed inboxKey, string peerId, bytes32 linkHash, bytes32 previousLinkHash)
func (identityLink *IdentityLink) UnpackLinkRotatedEvent(log *types.Log) (*IdentityLinkLinkRotated, error) {
	event := "LinkRotated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != identityLink.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(IdentityLinkLinkRotated)
	if len(log.Data) > 0 {
		if err := identityLink.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range identityLink.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (identityLink *IdentityLink) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], identityLink.abi.Errors["AlreadyRegistered"].ID.Bytes()[:4]) {
		return identityLink.UnpackAlreadyRegisteredError(raw[4:])
	}
	if bytes.Equal(raw[:4], identityLink.abi.Errors["BadRecord"].ID.Bytes()[:4]) {
		return identityLink.UnpackBadRecordError(raw[4:])
	}
	if bytes.Equal(raw[:4], identityLink.abi.Errors["NotRegistered"].ID.Bytes()[:4]) {
		return identityLink.UnpackNotRegisteredError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// IdentityLinkAlreadyRegistered represents a AlreadyRegistered error raised by the IdentityLink contract.
type IdentityLinkAlreadyRegistered struct {
	Account common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AlreadyRegistered(address account)
func IdentityLinkAlreadyRegisteredErrorID() common.Hash {
	return common.HexToHash("0x45ed80e9399c87887ea54f615514a1e3dde31e9b6c027ddceb4ffd503b70e428")
}

// UnpackAlreadyRegisteredError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AlreadyRegistered(address account)
func (identityLink *IdentityLink) UnpackAlreadyRegisteredError(raw []byte) (*IdentityLinkAlreadyRegistered, error) {
	out := new(IdentityLinkAlreadyRegistered)
	if err := identityLink.abi.UnpackIntoInterface(out, "AlreadyRegistered", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// IdentityLinkBadRecord represents a BadRecord error raised by the IdentityLink contract.
type IdentityLinkBadRecord struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadRecord()
func IdentityLinkBadRecordErrorID() common.Hash {
	return common.HexToHash("0x00defe30828302811f6eeddfd75fd8f5ed29951d8aa981806467efb113622872")
}

// UnpackBadRecordError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadRecord()
func (identityLink *IdentityLink) UnpackBadRecordError(raw []byte) (*IdentityLinkBadRecord, error) {
	out := new(IdentityLinkBadRecord)
	if err := identityLink.abi.UnpackIntoInterface(out, "BadRecord", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// IdentityLinkNotRegistered represents a NotRegistered error raised by the IdentityLink contract.
type IdentityLinkNotRegistered struct {
	Account common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotRegistered(address account)
func IdentityLinkNotRegisteredErrorID() common.Hash {
	return common.HexToHash("0xbfc6c337a80b7b8201f77f0a2a54c6e5f7c6fd9124a749804a482fa16ee8a895")
}

// UnpackNotRegisteredError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotRegistered(address account)
func (identityLink *IdentityLink) UnpackNotRegisteredError(raw []byte) (*IdentityLinkNotRegistered, error) {
	out := new(IdentityLinkNotRegistered)
	if err := identityLink.abi.UnpackIntoInterface(out, "NotRegistered", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LedgerAnchorMetaData contains all meta data concerning the LedgerAnchor contract.
var LedgerAnchorMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"name\":\"BadHead\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"last\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"count\",\"type\":\"uint64\"}],\"name\":\"CountNotIncreasing\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"node\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"head\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"count\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"timestamp\",\"type\":\"uint64\"}],\"name\":\"Anchored\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"head\",\"type\":\"bytes32\"},{\"internalType\":\"uint64\",\"name\":\"count\",\"type\":\"uint64\"}],\"name\":\"anchor\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"node\",\"type\":\"address\"}],\"name\":\"lastCount\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"count\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "7dc6ff249db89bd50b35a7d0ca55eba552",
	Bin: "0x60808060405234601557610156908161001a8239f35b5f80fdfe6080806040526004361015610012575f80fd5b5f3560e01c908163d641572d14610107575063db2c4aca14610032575f80fd5b346101035760403660031901126101035760043560243567ffffffffffffffff81168091036101035781156100f457335f525f60205267ffffffffffffffff60405f205416808211156100df5750335f525f60205260405f208167ffffffffffffffff1982541617905560405190815267ffffffffffffffff421660208201527fef142d390c5328deae6fcdec8e8eed362b224af35bb6d9aeb988f6233b12a6e9339160408180030190a3005b6391462f4360e01b5f5260045260245260445ffd5b63186e6d0360e11b5f5260045ffd5b5f80fd5b34610103576020366003190112610103576004356001600160a01b0381169190829003610103576020915f525f825267ffffffffffffffff60405f2054168152f3fea164736f6c6343000825000a",
}

// LedgerAnchor is an auto generated Go binding around an Ethereum contract.
type LedgerAnchor struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *LedgerAnchor) GetABI() abi.ABI {
	return c.abi
}

// NewLedgerAnchor creates a new instance of LedgerAnchor.
func NewLedgerAnchor() *LedgerAnchor {
	parsed, err := LedgerAnchorMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &LedgerAnchor{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *LedgerAnchor) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackAnchor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdb2c4aca.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function anchor(bytes32 head, uint64 count) returns()
func (ledgerAnchor *LedgerAnchor) PackAnchor(head [32]byte, count uint64) []byte {
	enc, err := ledgerAnchor.abi.Pack("anchor", head, count)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAnchor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdb2c4aca.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function anchor(bytes32 head, uint64 count) returns()
func (ledgerAnchor *LedgerAnchor) TryPackAnchor(head [32]byte, count uint64) ([]byte, error) {
	return ledgerAnchor.abi.Pack("anchor", head, count)
}

// PackLastCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd641572d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function lastCount(address node) view returns(uint64 count)
func (ledgerAnchor *LedgerAnchor) PackLastCount(node common.Address) []byte {
	enc, err := ledgerAnchor.abi.Pack("lastCount", node)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLastCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd641572d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function lastCount(address node) view returns(uint64 count)
func (ledgerAnchor *LedgerAnchor) TryPackLastCount(node common.Address) ([]byte, error) {
	return ledgerAnchor.abi.Pack("lastCount", node)
}

// UnpackLastCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd641572d.
//
// Solidity: function lastCount(address node) view returns(uint64 count)
func (ledgerAnchor *LedgerAnchor) UnpackLastCount(data []byte) (uint64, error) {
	out, err := ledgerAnchor.abi.Unpack("lastCount", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// LedgerAnchorAnchored represents a Anchored event raised by the LedgerAnchor contract.
type LedgerAnchorAnchored struct {
	Node      common.Address
	Head      [32]byte
	Count     uint64
	Timestamp uint64
	Raw       *types.Log // Blockchain specific contextual infos
}

const LedgerAnchorAnchoredEventName = "Anchored"

// ContractEventName returns the user-defined event name.
func (LedgerAnchorAnchored) ContractEventName() string {
	return LedgerAnchorAnchoredEventName
}

// UnpackAnchoredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Anchored(address indexed node, bytes32 indexed head, uint64 count, uint64 timestamp)
func (ledgerAnchor *LedgerAnchor) UnpackAnchoredEvent(log *types.Log) (*LedgerAnchorAnchored, error) {
	event := "Anchored"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != ledgerAnchor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(LedgerAnchorAnchored)
	if len(log.Data) > 0 {
		if err := ledgerAnchor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range ledgerAnchor.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (ledgerAnchor *LedgerAnchor) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], ledgerAnchor.abi.Errors["BadHead"].ID.Bytes()[:4]) {
		return ledgerAnchor.UnpackBadHeadError(raw[4:])
	}
	if bytes.Equal(raw[:4], ledgerAnchor.abi.Errors["CountNotIncreasing"].ID.Bytes()[:4]) {
		return ledgerAnchor.UnpackCountNotIncreasingError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// LedgerAnchorBadHead represents a BadHead error raised by the LedgerAnchor contract.
type LedgerAnchorBadHead struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadHead()
func LedgerAnchorBadHeadErrorID() common.Hash {
	return common.HexToHash("0x30dcda06345e536c3168d523f6bc2a82c288325623ab6dc93b132a9629eb602b")
}

// UnpackBadHeadError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadHead()
func (ledgerAnchor *LedgerAnchor) UnpackBadHeadError(raw []byte) (*LedgerAnchorBadHead, error) {
	out := new(LedgerAnchorBadHead)
	if err := ledgerAnchor.abi.UnpackIntoInterface(out, "BadHead", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LedgerAnchorCountNotIncreasing represents a CountNotIncreasing error raised by the LedgerAnchor contract.
type LedgerAnchorCountNotIncreasing struct {
	Last  uint64
	Count uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error CountNotIncreasing(uint64 last, uint64 count)
func LedgerAnchorCountNotIncreasingErrorID() common.Hash {
	return common.HexToHash("0x91462f43f86bfaaa0ee690bd2bee87ba75e5b03b6b0c03c45c8af8a073b3ffa4")
}

// UnpackCountNotIncreasingError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error CountNotIncreasing(uint64 last, uint64 count)
func (ledgerAnchor *LedgerAnchor) UnpackCountNotIncreasingError(raw []byte) (*LedgerAnchorCountNotIncreasing, error) {
	out := new(LedgerAnchorCountNotIncreasing)
	if err := ledgerAnchor.abi.UnpackIntoInterface(out, "CountNotIncreasing", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryMetaData contains all meta data concerning the TaskRegistry contract.
var TaskRegistryMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"contractIArbitrationModuleOpen\",\"name\":\"arbitration_\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"reviewPeriod_\",\"type\":\"uint64\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"sum\",\"type\":\"uint256\"}],\"name\":\"AmountMismatch\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"registry\",\"type\":\"address\"}],\"name\":\"ArbitrationMismatch\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"}],\"name\":\"BadAmendment\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"name\":\"BadMilestone\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"BadMilestones\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"remaining\",\"type\":\"uint256\"}],\"name\":\"BadPart\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"workerBps\",\"type\":\"uint256\"}],\"name\":\"BadShare\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"expected\",\"type\":\"uint256\"}],\"name\":\"BadValue\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"}],\"name\":\"BadWorker\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"}],\"name\":\"DeadlineNotPassed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"}],\"name\":\"DeadlinePassed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"digest\",\"type\":\"bytes32\"}],\"name\":\"DigestUsed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyProof\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"owed\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"requested\",\"type\":\"uint256\"}],\"name\":\"InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidShortString\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"expected\",\"type\":\"address\"}],\"name\":\"MalformedSignature\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"}],\"name\":\"NoSuchMilestone\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"}],\"name\":\"NotActive\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotArbitration\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotParty\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotPoster\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotWorker\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NothingInEscrow\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NothingToRefund\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ReentrancyGuardReentrantCall\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"until\",\"type\":\"uint64\"}],\"name\":\"ReviewPending\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"until\",\"type\":\"uint64\"}],\"name\":\"ReviewPeriodOver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"SafeERC20FailedOperation\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"expected\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"got\",\"type\":\"uint256\"}],\"name\":\"StaleNonce\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"}],\"name\":\"StaleTask\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"str\",\"type\":\"string\"}],\"name\":\"StringTooLong\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"received\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"expected\",\"type\":\"uint256\"}],\"name\":\"TokenShortfall\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"}],\"name\":\"TooManyRevisions\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"}],\"name\":\"TransferFailed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"}],\"name\":\"UnknownTask\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"expected\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"recovered\",\"type\":\"address\"}],\"name\":\"WrongSigner\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Credited\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"opener\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"escrow\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"bond\",\"type\":\"uint256\"}],\"name\":\"DisputeOpened\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"workerAmount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"posterAmount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"bondTo\",\"type\":\"address\"}],\"name\":\"DisputeSettled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"EIP712DomainChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"cancelled\",\"type\":\"bool\"}],\"name\":\"EscrowRefunded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"_metaEvidenceID\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"_evidence\",\"type\":\"string\"}],\"name\":\"MetaEvidence\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"unanswered\",\"type\":\"bool\"}],\"name\":\"MilestoneReleased\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"}],\"name\":\"PartReleased\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"proofCid\",\"type\":\"string\"}],\"name\":\"ProofSubmitted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"resubmitUntil\",\"type\":\"uint64\"}],\"name\":\"RevisionRequested\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"}],\"name\":\"TaskAmended\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes16\",\"name\":\"negotiationId\",\"type\":\"bytes16\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"acceptedOfferHash\",\"type\":\"bytes32\"}],\"name\":\"TaskCreated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"indexed\":false,\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"}],\"name\":\"TaskUpdated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Withdrawn\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"oldWorker\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"newWorker\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"handoffHash\",\"type\":\"bytes32\"}],\"name\":\"WorkerReplaced\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"BPS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_MILESTONES\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_REVISIONS\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256[]\",\"name\":\"milestoneAmounts\",\"type\":\"uint256[]\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"internalType\":\"structAmendment\",\"name\":\"a\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"posterSig\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"workerSig\",\"type\":\"bytes\"}],\"name\":\"amend\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256[]\",\"name\":\"milestoneAmounts\",\"type\":\"uint256[]\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"internalType\":\"structAmendment\",\"name\":\"a\",\"type\":\"tuple\"}],\"name\":\"amendmentDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"arbitration\",\"outputs\":[{\"internalType\":\"contractIArbitrationModuleOpen\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"name\":\"cancelDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"}],\"name\":\"claimUnanswered\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"bytes16\",\"name\":\"negotiationId\",\"type\":\"bytes16\"},{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256[]\",\"name\":\"milestoneAmounts\",\"type\":\"uint256[]\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"acceptedOfferHash\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"internalType\":\"structSettlement\",\"name\":\"s\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"posterSig\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"workerSig\",\"type\":\"bytes\"}],\"name\":\"createTask\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"domainSeparator\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"eip712Domain\",\"outputs\":[{\"internalType\":\"bytes1\",\"name\":\"fields\",\"type\":\"bytes1\"},{\"internalType\":\"string\",\"name\":\"name\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"verifyingContract\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"extensions\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"}],\"name\":\"hashTask\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"posterSig\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"workerSig\",\"type\":\"bytes\"}],\"name\":\"mutualCancel\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"}],\"name\":\"openDispute\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"disputeId\",\"type\":\"uint256\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"owed\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"}],\"name\":\"reclaimExpired\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"}],\"name\":\"releaseMilestone\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"}],\"name\":\"releasePart\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"newWorker\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"handoffHash\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"internalType\":\"structReplacement\",\"name\":\"r\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"posterSig\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"workerSig\",\"type\":\"bytes\"}],\"name\":\"replaceWorker\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"newWorker\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"handoffHash\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"internalType\":\"structReplacement\",\"name\":\"r\",\"type\":\"tuple\"}],\"name\":\"replacementDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"}],\"name\":\"requestRevision\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"reviewPeriod\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"escrow\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"opener\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"bond\",\"type\":\"uint256\"}],\"internalType\":\"structDisputeTerms\",\"name\":\"terms\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"workerBps\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"bondTo\",\"type\":\"address\"}],\"name\":\"settleDispute\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"bytes16\",\"name\":\"negotiationId\",\"type\":\"bytes16\"},{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256[]\",\"name\":\"milestoneAmounts\",\"type\":\"uint256[]\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"acceptedOfferHash\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"internalType\":\"structSettlement\",\"name\":\"s\",\"type\":\"tuple\"}],\"name\":\"settlementDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"milestone\",\"type\":\"uint256\"},{\"internalType\":\"string\",\"name\":\"proofCid\",\"type\":\"string\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"worker\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"deadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"nonce\",\"type\":\"uint64\"},{\"internalType\":\"enumTaskStatus\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"termsHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"released\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"submittedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint8\",\"name\":\"revisions\",\"type\":\"uint8\"},{\"internalType\":\"enumMilestoneState\",\"name\":\"state\",\"type\":\"uint8\"}],\"internalType\":\"structMilestone[]\",\"name\":\"milestones\",\"type\":\"tuple[]\"}],\"internalType\":\"structTask\",\"name\":\"task\",\"type\":\"tuple\"}],\"name\":\"submitProof\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"taskId\",\"type\":\"bytes32\"}],\"name\":\"taskState\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"stateHash\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"withdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "3e58831ba5b6e7dae5b502537905881665",
	Bin: "0x6101a080604052346102855760408161388e80380380916100208285610289565b8339810103126102855780516001600160a01b038116918282036102855760200151916001600160401b038316830361028557604051610061604082610289565b600681526020810190655061726c657960d01b825260405191610085604084610289565b600183526020830191603160f81b835261009e816102df565b610120526100ab846102df565b61014052519020918260e05251902080610100524660a0526040519060208201927f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f8452604083015260608201524660808201523060a082015260a0815261011460c082610289565b5190206080523060c052604051637b10399960e01b8152602081600481855afa90811561025b575f91610266575b50306001600160a01b03909116036101e557506101605261018052604051613543908161034b82396080518161317a015260a05181613231015260c05181613144015260e051816131c9015261010051816131ef015261012051816110da01526101405181611104015261016051818181610e6c0152818161127201526114d9015261018051818181610d0d01528181611d05015281816120370152612ff30152f35b602060049160405192838092637b10399960e01b82525afa90811561025b575f9161022c575b506303d9819b60e01b5f9081526001600160a01b0391909116600452602490fd5b61024e915060203d602011610254575b6102468183610289565b8101906102c0565b8161020b565b503d61023c565b6040513d5f823e3d90fd5b61027f915060203d602011610254576102468183610289565b5f610142565b5f80fd5b601f909101601f19168101906001600160401b038211908210176102ac57604052565b634e487b7160e01b5f52604160045260245ffd5b9081602091031261028557516001600160a01b03811681036102855790565b601f81511161030a5760208151910151602082106102fb571790565b5f198260200360031b1b161790565b604460209160405192839163305a27a960e01b83528160048401528051918291826024860152018484015e5f828201840152601f01601f19168101030190fdfe60806040526004361015610011575f80fd5b5f5f3560e01c806310fb31f81461214e578063249d39e91461213257806328079e4a146120e2578063395fa72d1461205b5780633b249810146120185780634191351614611e6d5780634c05abeb14611e525780634c1433eb14611e0957806369d15f7814611c9e57806369d649d4146117055780636ead85001461149457806371431508146111bc57806384b0196e146110c05780638d37885914611071578063982a9bcd14610e9b5780639b73235014610e565780639d95a73114610ca35780639fb24cfa14610c79578063a1220d7514610c54578063ad194d9914610c10578063c9a6919a146109ae578063cd1c452714610968578063d5673e1c146104fb578063d7f3baae1461034b578063d883dacc1461032f578063f3fef3a3146101685763f698da2514610143575f80fd5b34610165578060031936011261016557602061015d613141565b604051908152f35b80fd5b50346101655760403660031901126101655761018261217b565b906024359161018f6129a5565b6001600160a01b0316808252600360209081526040808420335f9081529252902054929081158015610326575b610310576101cb8284956122b7565b81845260036020526040842060018060a01b0333165f5260205260405f2055806040518381527fd1c19fbcd4551a5edfb66d43d2e337c04837afda3482b42bdf569a8fccdae5fb60203392a3806102a0575081808092335af13d1561029b573d6001600160401b0381116102875760405190610251601f8201601f191660200183612341565b81528260203d92013e5b15610274575b805f5160206135175f395f51905f525d80f35b6339f1c8d960e01b815233600452602490fd5b634e487b7160e01b83526041600452602483fd5b61025b565b91506040519063a9059cbb60e01b84523360045260245260208360448180865af19060018451148216156102ef575b604052156102dd5750610261565b635274afe760e01b8252600452602490fd5b90600181151661030757823b15153d151616906102cf565b503d83823e3d90fd5b5060449263cf47918160e01b8352600452602452fd5b508382116101bc565b5034610165578060031936011261016557602060405160038152f35b50346101655761036e61035d36612224565b6103689291926129a5565b826129da565b80519091906001600160a01b031633036104e85760608201906001600160401b03825116804211156104d657508390849360e08101945b8551805182101561045957816103ba9161228f565b5160808101805160058110156104455715801561040b575b6103e1575b50506001016103a5565b946103fd610403926003600195985260208151910151906122b7565b906122c4565b93905f6103d7565b50805160058110156104455760041480156103d257506001600160401b0361043d818951168260408601511690612fec565b1642116103d2565b634e487b7160e01b8a52602160045260248afd5b5050859183156104c757807f6b05cad8af47ce98c001314c2bafc3bc3681f0313cb926cd63f0faa3f8cb15a16040866104ad610261979860018060a01b0388511660018060a01b03858a0151169087612c2d565b8151908152876020820152a26104c282612f54565b612c99565b63f76aef6560e01b8352600483fd5b6301f4899760e41b8552600452602484fd5b6334a8f72960e11b835233600452602483fd5b506060366003190112610165576004356001600160401b0381116109645780600401916101406003198336030112610165576024356001600160401b0381116109645761054c9036906004016121f7565b90926044356001600160401b0381116109605761056d9036906004016121f7565b95906105776129a5565b602483016001600160a01b0361058c8261259c565b16330361094d5760448401946001600160a01b036105a98761259c565b1615801561091f575b6108fb5760a48501926105c5848661250a565b809b91501580156108f1575b6108e25760c48701926105e38461253f565b6001600160401b0342911611156108be576106056106008861303d565b61297f565b9a8b8b52600260205260408b20546108aa578b6106419493926106319261062b8961259c565b92612bc4565b61063a8961259c565b918b612bc4565b610649612834565b956001600160a01b0361065b8461259c565b1687526001600160a01b03906106709061259c565b16602087015260648501906001600160401b03906106a4906001600160a01b036106998561259c565b1660408a015261253f565b166060870152600160a087015260e4850135988960c08801526106c68161289a565b9060e088019182528894895b82811061085e57505050506084850135808403610847575061081e6020997fdf3420231d513acc8529a86fc4d718e683a2b9a51a10eaf3ceb3473e0ff540c1968a7f100013c9c44094e0e630accf3823916d99ae59178a4299ca782d40daf41bf20b8d61079861082d9a8e61077e869f9c879c6107786107727f61606860eb6c87306811e2695215385101daab53bd6ab4e9f9049aead9363c7d9e61259c565b9161259c565b90612dbe565b60406107898d612ce6565b918781526002865220556128f9565b61010460405195013585526001600160801b03191693a36107d86107c56001600160801b031983166132c9565b9160801b6001600160801b0319166132c9565b604051916e0e0c2e4d8caf274e8cae4dae67460f608b1b8d840152602f830152604f820152604f815261080c606f82612341565b6040519182918c83528c83019061225d565b0390a2604051918291826125b0565b0390a25f5160206135175f395f51905f525d604051908152f35b63ce6b173b60e01b88526004526024839052604487fd5b6108728161086c848b61250a565b906128e9565b3596871561089b5790610887886001936122c4565b9761089382875161228f565b5152016106d2565b63597e272560e01b8c5260048cfd5b63fc21f43960e01b8b5260048c905260248bfd5b60248a6001600160401b036108d28761253f565b636768091360e01b835216600452fd5b63597e272560e01b8952600489fd5b5060408b116105d1565b6024876109078861259c565b630c1e0a5d60e41b82526001600160a01b0316600452fd5b506109298661259c565b6001600160a01b0361093a8461259c565b6001600160a01b039092169116146105b2565b6334a8f72960e11b865233600452602486fd5b8380fd5b5080fd5b503461016557604036600319011261016557602435906001600160401b038211610165576080600319833603011261016557602061015d61060084600401600435612d24565b50346101655760e0366003190112610165576004356060366023190112610964576084356001600160401b038111610c0c576101006003198236030112610c0c5760a4356001600160401b03811161096057610a0e9036906004016121f7565b909260c435916001600160401b038311610c0857610a33610a479336906004016121f7565b939094610a3e6129a5565b600401836129da565b926064359560808501966001600160401b03885116808203610bf357506001600160a01b039050610a76612586565b16158015610bd5575b8015610bb4575b610ba95790610ab1610ac69392610a9f6106008761290e565b9360018060a01b038851169185612bc4565b602085019560018060a01b0387511692612bc4565b60e0820193855b85518051821015610b255781610ae29161228f565b5160808101908151600581101561044557918991610b0260019594612ab9565b610b10575b50505001610acd565b82606092528260408201520152875f80610b07565b5050835186955061026194906001600160a01b0316610b42612586565b90847fe7c01c9ff8192fd1a7244ff5efa7a6f604735a5b64b62b0c913d21a3c5f9eacc602060405194604435865260018060a01b031694a46001600160a01b03610b8a612586565b1690526001600160401b03610ba181835116612553565b169052612c99565b602488610907612586565b50610bbd612586565b60208601516001600160a01b03918216911614610a86565b50610bde612586565b85516001600160a01b03918216911614610a7f565b63f54256bf60e01b8a52600452602452604488fd5b8580fd5b8280fd5b503461016557602036600319011261016557600435906001600160401b03821161016557610140600319833603011261016557602061015d6106008460040161303d565b503461016557604036600319011261016557602061015d610600602435600435612b7e565b50346101655760203660031901126101655760406020916004358152600283522054604051908152f35b503461016557610cc190610cb6366121bb565b6103689491946129a5565b80519091906001600160a01b031633036104e857610cdf8483612a80565b93608085019485516005811015610e42575f1901610e055760408101906001600160401b03610d32818451167f0000000000000000000000000000000000000000000000000000000000000000906124ea565b1680421015610df3575060600195600360ff8851161015610ddf57600490526001600160401b034216815260ff86511660ff8114610dcb57604061026196976001600160401b03610dba879560ff60017fc1dad189c26639d083501851808e39d2706f00ce8559f9de2ee4421046165d54970116809452828060608c01511691511690612fec565b8351928352166020820152a3612c99565b634e487b7160e01b86526011600452602486fd5b63029d7d4160e41b86526004839052602486fd5b6310a7f45b60e01b8752600452602486fd5b50838551916005831015610e2e57633f4bd1f560e01b8252600452604491610e2c90612281565bfd5b634e487b7160e01b82526021600452602482fd5b634e487b7160e01b86526021600452602486fd5b50346101655780600319360112610165576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b503461016557608036600319011261016557602435906004356044356001600160401b038111610c0c57610ed39036906004016121f7565b6064929192356001600160401b03811161106d57610100600319823603011261106d57610f0290610a3e6129a5565b60208101519093906001600160a01b0316330361105a57811561104b57610f298685612a80565b608081018051600581101561101157600403611037576001600160401b03610f5e816060890151168260408601511690612fec565b1680421161102557508051600581101561101157610f7b90612ab9565b15610fec5792604085937f788a3f8bfb9919ece940ff36f6d872648e5e9e9d158d825e026a45c6af72b11e9360016102619a9b9752826001600160401b034216910152828251938492602084528160208501528484013781810183018b9052601f01601f19168101030190a3612c99565b5186886005831015610e2e57633f4bd1f560e01b8252600452604491610e2c90612281565b634e487b7160e01b88526021600452602488fd5b636768091360e01b8852600452602487fd5b6001600160401b0380606088015116610f5e565b63668fd6f360e01b8552600485fd5b63d8d46bad60e01b855233600452602485fd5b8480fd5b5034610165576080366003190112610165576064356001600160401b03811161096457610100600319823603011261096457610261906110af6129a5565b6004016044356024356004356126fa565b5034610165578060031936011261016557611160906110fe7f000000000000000000000000000000000000000000000000000000000000000061328b565b906111287f000000000000000000000000000000000000000000000000000000000000000061328b565b90602061116e6040519361113c8386612341565b8385525f368137604051968796600f60f81b885260e08589015260e088019061225d565b90868203604088015261225d565b904660608601523060808601528260a086015284820360c08601528080855193848152019401925b8281106111a557505050500390f35b835185528695509381019392810192600101611196565b506111c961035d36612224565b9160018060a01b038351163314158061147d575b61146b575f9260e0810192845b8451805182101561125857816111ff9161228f565b51608081015160058110156112445761121790612ab9565b611225575b506001016111ea565b600191966103fd82602061123d9451910151906122b7565b959061121c565b634e487b7160e01b5f52602160045260245ffd5b50508285801561145c576040516364c9ec6f60e01b8152937f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03169190602086600481865afa958615611402575f96611428575b50853403611411578051602082015160408084015190519860c0959390926001600160a01b039283169290811691166112eb8b61230a565b8a5260208a015260408901528160608901523360808901528060a0890152600260a084015261131988612fa4565b875f52600260205260405f20556040519182526020820152857f1258a21efc3e03bd3ac37666dd21a4dca4a490730b1f5f0e8e0a18bd867eeb8360403393a3847fdf3420231d513acc8529a86fc4d718e683a2b9a51a10eaf3ceb3473e0ff540c16040518061138885826125b0565b0390a2015193813b1561140d576101046113c1915f80946040519889958694630d1909f360e01b86528a600487015260248601906126b1565b60e48401525af1928315611402576020936113ef575b505f5160206135175f395f51905f525d604051908152f35b6113fb91505f90612341565b5f836113d7565b6040513d5f823e3d90fd5b5f80fd5b85638c54e30960e01b5f523460045260245260445ffd5b9095506020813d602011611454575b8161144460209383612341565b8101031261140d575194866112b3565b3d9150611437565b635bfba5a960e11b5f5260045ffd5b6282e6cd60e61b5f523360045260245ffd5b5060208301516001600160a01b03163314156111dd565b3461140d5761012036600319011261140d5760043560c036602319011261140d57610104356001600160a01b0381169060e4359082900361140d576114d76129a5565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031633036116f257825f52600260205260405f2054604051926115218461230a565b611529612191565b84526044356001600160a01b038116810361140d57602085018190526064356001600160a01b038116810361140d576040860152608435606086018190529260a4356001600160a01b038116810361140d57608087015261159260c435968760a0820152612fa4565b036116df5761271084116116cc578383029383850414831517156116b8577f5a4cafdb7a1f7dbaef11325c18ea03d27c9d848ea20aac82b40e5e864e5996ec946115e36127106060960480956122b7565b91875f526002602052600160405f205584806116a5575b505081611685575b828782611630575b50505060405192835260208301526040820152a25f5f5160206135175f395f51905f525d005b7f9e162113290241a6fac217e43087d4a505b812132ecb0368edf06157e08db26260205f9485805260038252604086208587528252604086206116748282546122c4565b9055604051908152a486828761160a565b6116a082611691612586565b611699612570565b908a612c2d565b611602565b6116b191611699612570565b87846115fa565b634e487b7160e01b5f52601160045260245ffd5b83636c92ce2760e01b5f5260045260245ffd5b8563ec3f1b0160e01b5f5260045260245ffd5b6336a1621d60e01b5f523360045260245ffd5b60a036600319011261140d576024356004356001600160401b03821161140d5781600401906080600319843603011261140d57604435916001600160401b03831161140d57610100600319843603011261140d576064356001600160401b03811161140d576117789036906004016121f7565b93608435946001600160401b03861161140d5761179c6117b09636906004016121f7565b9690926117a76129a5565b600401866129da565b9560648801359260808801936001600160401b03855116808203611c895750506117da868061250a565b801591508115611c7e575b50611b0a5760248901946117f88661253f565b6001600160401b034291161115611c5a57906118326118469493926118206106008a8c612d24565b9460018060a01b038c51169186612bc4565b60208901516001600160a01b031692612bc4565b60e08501906118578251948061250a565b9290975f955f996118678661289a565b9582518181115f14611c5057909291925b5f935b828510611a055750505050508589115f146119695787516001600160a01b03163303611956576001600160401b0361190a7f2fc2adcc7c2dfb831006367e7d9f0da1f22d77d635d2a75a6bfe6112089d768f966040966044956119048d6119449f6118fe8f9e60018060a01b038e850151169360018060a01b03905116926122b7565b91612dbe565b5261253f565b16606089015201358060c08801526001600160401b0361192c81845116612553565b1680925282519182526020820152a26104c282612f54565b5f5f5160206135175f395f51905f525d005b6334a8f72960e11b5f523360045260245ffd5b346119ee576001600160401b0361190a7f2fc2adcc7c2dfb831006367e7d9f0da1f22d77d635d2a75a6bfe6112089d768f966040966044958d8c6119449f9c8f829e82116119bb575b50505050611904565b8051908d01516119e5946001600160a01b039182169391909216916119df916122b7565b92612c2d565b8e8b818f6119b2565b638c54e30960e01b5f52346004525f60245260445ffd5b90919293809d5f91865111611b23575b838f1015611b1957611a288f85856128e9565b3515611b0a57611a48908f83611a426103fd9288886128e9565b356122b7565b9d855181105f14611ae957611a5e8185856128e9565b356001600160401b036040611a73848a61228f565b5101511660ff6060611a85858b61228f565b510151166080611a95858b61228f565b5101519160058310156112445760019560405194611ab2866122db565b85526020850152604084015260608301526080820152611ad2828c61228f565b52611add818b61228f565b505b019392919061187b565b60019150611af88185856128e9565b35611b03828c61228f565b5152611adf565b63597e272560e01b5f5260045ffd5b9d60019150611adf565b9d9c9b9a90506080611b358e8761228f565b51015160058110156112445760028114908115611c45575b50611bd8578c9d6020611b648f9e9f9d9e8861228f565b5101519182151580611bab575b611b9857611b9085916103fd8f611b8987918c61228f565b51516122b7565b9c5050611a15565b8c63198b953160e01b5f5260045260245ffd5b508c8386821091821592611bc1575b5050611b71565b611bce91925087876128e9565b351115838e611bba565b999a9b828110801590611c25575b611c135780611bf76001928761228f565b51611c02828c61228f565b52611c0d818b61228f565b50611adf565b63198b953160e01b5f5260045260245ffd5b50611c318184846128e9565b35611c3c828761228f565b51511415611be6565b60039150148f611b4d565b5080929192611878565b6001600160401b03611c6b8761253f565b636768091360e01b5f521660045260245ffd5b60409150118a6117e5565b63f54256bf60e01b5f5260045260245260445ffd5b3461140d57611cba611caf366121bb565b6103689391936129a5565b90602082019260018060a01b038451163303611df657611cda8184612a80565b6080810180516005811015611244575f1901611dcf5750611d2a6001600160401b03604081930151167f0000000000000000000000000000000000000000000000000000000000000000906124ea565b16804210611dbd5750817f5cf814ada10da786d03743efe52c76507ee70cafea7b569189da119b8271393e604061194496611da7611d6c8660e08a015161228f565b51805192611d8060208301948551906122b7565b60026080840152915190935291518884015183916001600160a01b03918216911687612c2d565b815190815260016020820152a36104c282612f54565b63c6c359fd60e01b5f5260045260245ffd5b905051600581101561124457611df191633f4bd1f560e01b5f52600452612281565b60445ffd5b63d8d46bad60e01b5f523360045260245ffd5b3461140d57602036600319011261140d576004356001600160401b03811161140d57610100600319823603011261140d5761015d611e4d602092369060040161238d565b612ce6565b3461140d575f36600319011261140d57602060405160408152f35b3461140d57608036600319011261140d576004356024356001600160401b03811161140d57610100600319823603011261140d576044356001600160401b03811161140d57611ec09036906004016121f7565b6064929192356001600160401b03811161140d57611f4192611f2d611eec611f009336906004016121f7565b939092611ef76129a5565b600401886129da565b95611f1b6106006001600160401b0360808a0151168a612b7e565b9460018060a01b038851169186612bc4565b60208501516001600160a01b031692612bc4565b5f9160e0820191835b83518051821015611fab5781611f5f9161228f565b51608081018051600581101561124457611f7890612ab9565b611f87575b5050600101611f4a565b956103fd611fa3926003600195995260208151910151906122b7565b949086611f7d565b6119448385807f6b05cad8af47ce98c001314c2bafc3bc3681f0313cb926cd63f0faa3f8cb15a160408b80611ff4575b815190815260016020820152a2600360a0830152612c99565b8551828701516120139183916001600160a01b03908116911687612c2d565b611fdb565b3461140d575f36600319011261140d5760206040516001600160401b037f0000000000000000000000000000000000000000000000000000000000000000168152f35b3461140d5761207e61206c366121bb565b612078939192936129a5565b836129da565b80516001600160a01b0316330361195657608061209b8383612a80565b019283516005811015611244576120b190612ab9565b156120c0576119449350612af3565b828451600581101561124457611df191633f4bd1f560e01b5f52600452612281565b3461140d57604036600319011261140d576120fb61217b565b612103612191565b6001600160a01b039182165f908152600360209081526040808320949093168252928352819020549051908152f35b3461140d575f36600319011261140d5760206040516127108152f35b3461140d57608036600319011261140d57606036602319011261140d57602061015d61060060043561290e565b600435906001600160a01b038216820361140d57565b602435906001600160a01b038216820361140d57565b35906001600160a01b038216820361140d57565b606060031982011261140d576004359160243591604435906001600160401b03821161140d5761010090829003600319011261140d5760040190565b9181601f8401121561140d578235916001600160401b03831161140d576020838186019501011161140d57565b90604060031983011261140d5760043591602435906001600160401b03821161140d5761010090829003600319011261140d5760040190565b805180835260209291819084018484015e5f828201840152601f01601f1916010190565b600581101561124457602452565b80518210156122a35760209160051b010190565b634e487b7160e01b5f52603260045260245ffd5b919082039182116116b857565b919082018092116116b857565b6004111561124457565b60a081019081106001600160401b038211176122f657604052565b634e487b7160e01b5f52604160045260245ffd5b60c081019081106001600160401b038211176122f657604052565b61010081019081106001600160401b038211176122f657604052565b90601f801991011681019081106001600160401b038211176122f657604052565b35906001600160401b038216820361140d57565b6001600160401b0381116122f65760051b60200190565b91906101008382031261140d576040516123a681612325565b80936123b1816121a7565b82526123bf602082016121a7565b60208301526123d0604082016121a7565b60408301526123e160608201612362565b60608301526123f260808201612362565b608083015260a0810135600481101561140d5760a083015260c081013560c083015260e0810135906001600160401b03821161140d570182601f8201121561140d5780359061244082612376565b9361244e6040519586612341565b828552602060a081870194028301019181831161140d57602001925b82841061247b575050505060e00152565b60a08483031261140d5760405190612492826122db565b84358252602085013560208301526124ac60408601612362565b6040830152606085013560ff8116810361140d576060830152608085013590600582101561140d5782602092608060a095015281520193019261246a565b906001600160401b03809116911601906001600160401b0382116116b857565b903590601e198136030182121561140d57018035906001600160401b03821161140d57602001918160051b3603831361140d57565b356001600160401b038116810361140d5790565b6001600160401b03166001600160401b0381146116b85760010190565b6064356001600160a01b038116810361140d5790565b6024356001600160a01b038116810361140d5790565b356001600160a01b038116810361140d5790565b9060208252602061014060e061012085019360018060a01b038151168487015260018060a01b038482015116604087015260018060a01b0360408201511660608701526001600160401b0360608201511660808701526001600160401b0360808201511660a087015260a0810151612627816122d1565b60c087015260c081015182870152015193610100808201528451809452019201905f905b8082106126585750505090565b9091926080845180518352602081015160208401526001600160401b03604082015116604084015260ff606082015116606084015201519060058210156112445760a0816001936080602094015201940192019061264b565b80516001600160a01b039081168352602080830151821690840152604080830151821690840152606080830151908401526080808301519091169083015260a090810151910152565b90919261270790826129da565b80519092906001600160a01b03163303611956576127258184612a80565b60808101805160058110156112445761273d90612ab9565b15611dcf575080519061275660208201928351906122b7565b8615801561282b575b6128155786146127d557507f78eaa0bc6f5bc7b1e7323b268448f06818736002732e621d13362646255622536040868361279e6127d3998896516122c4565b81526020880151838901516127c29184916001600160a01b03908116911688612c2d565b5182519182526020820152a3612c99565b565b8294939291507f78eaa0bc6f5bc7b1e7323b268448f06818736002732e621d133626462556225360406127d39785935182519182526020820152a3612af3565b86635c71e43d60e01b5f5260045260245260445ffd5b5080871161275f565b6040519061284182612325565b606060e0835f81525f60208201525f60408201525f838201525f60808201525f60a08201525f60c08201520152565b6040519061287d826122db565b5f6080838281528260208201528260408201528260608201520152565b906128a482612376565b6128b16040519182612341565b82815280926128c2601f1991612376565b01905f5b8281106128d257505050565b6020906128dd612870565b828285010152016128c6565b91908110156122a35760051b0190565b356001600160801b03198116810361140d5790565b6024356001600160a01b0381169081810361140d57506040519060208201927f7d859f6af803db582db753a295ae7996402b90a7fed815d26f31e28004603d19845260408301526060820152604435608082015260643560a082015260a0815261297960c082612341565b51902090565b60429061298a613141565b906040519161190160f01b8352600283015260228201522090565b5f5160206135175f395f51905f525c6129cb5760015f5160206135175f395f51905f525d565b633ee5aeb560e01b5f5260045ffd5b9190916129e5612834565b50805f52600260205260405f2054928315612a6d57600184148015612a4b575b612a3857612a1490369061238d565b92612a1e84612ce6565b03612a265750565b63ec3f1b0160e01b5f5260045260245ffd5b50636d9c892f60e11b5f5260045260245ffd5b5060a0810135600481101561140d57600190612a66816122d1565b1415612a05565b50632e3abafd60e01b5f5260045260245ffd5b60e090612a8b612870565b5001805151821015612aa65790612aa2915161228f565b5190565b50630b46bfc760e21b5f5260045260245ffd5b60058110159081611244578015918215612ae6575b8215612ad957505090565b9091506112445760041490565b506001811491505f612ace565b6127d392817f5cf814ada10da786d03743efe52c76507ee70cafea7b569189da119b8271393e6040612b298460e088015161228f565b518051612b3c60208301918251906122b7565b6002608084015291519052602087015182880151612b699183916001600160a01b03908116911687612c2d565b81519081525f6020820152a36104c282612f54565b906040519060208201927f04a9c26a32476076efa8636aac26b77f364d3494ef1170760e35833c1b9b107084526040830152606082015260608152612979608082612341565b90612bcf9291613257565b50909190612bdc816122d1565b612c0d576001600160a01b039182169116808203612bf8575050565b63366d29f760e01b5f5260045260245260445ffd5b635d5c2f1360e01b5f9081526001600160a01b0391909116600452602490fd5b90929160207f9e162113290241a6fac217e43087d4a505b812132ecb0368edf06157e08db2629160018060a01b031694855f526003825260405f2060018060a01b0382165f52825260405f20612c848682546122c4565b90556040519485526001600160a01b031693a4565b90612ce17fdf3420231d513acc8529a86fc4d718e683a2b9a51a10eaf3ceb3473e0ff540c191612cc881612ce6565b845f52600260205260405f2055604051918291826125b0565b0390a2565b60405161297981612cfb6020820194856125b0565b03601f198101835282612341565b91906001600160fb1b03811161140d5760051b809282370190565b906060612d4b612cfb612d37848061250a565b929060405192839160208301958691612d09565b519020916001600160401b03612d636020830161253f565b6040519460208601967fdf971a2dc6637714259c89049e5865a949fa9ae53ff19500c1afb6e9bbe0e4108852604087015284860152166080840152604081013560a0840152013560c082015260c0815261297960e082612341565b6001600160a01b03168015612f3257346119ee576040516370a0823160e01b815230600482015290602082602481845afa918215611402575f92612efe575b506040516323b872dd60e01b5f9081526001600160a01b039094166004523060245260448590529260209060648180855af160015f5114811615612edf575b836040525f60605215612ecd57826024816020936370a0823160e01b82523060048301525afa8015611402575f90612e99575b612e7992506122b7565b818103612e84575050565b63104569db60e21b5f5260045260245260445ffd5b506020823d602011612ec5575b81612eb360209383612341565b8101031261140d57612e799151612e6f565b3d9150612ea6565b635274afe760e01b5f5260045260245ffd5b6001811516612ef557813b15153d151616612e3c565b833d5f823e3d90fd5b9091506020813d602011612f2a575b81612f1a60209383612341565b8101031261140d5751905f612dfd565b3d9150612f0d565b5050803403612f3e5750565b638c54e30960e01b5f523460045260245260445ffd5b60e08101905f5b82518051821015612f9857612f728260809261228f565b510151600581101561124457612f8790612ab9565b612f9357600101612f5b565b505050565b50506003915060a00152565b604051612fdc60208201927fc3b9890439800d8c41802ed2499eb4daee294ec25f5bbde5932d7b3b0baccb89845260408301906126b1565b60e0815261297961010082612341565b90613018907f0000000000000000000000000000000000000000000000000000000000000000906124ea565b906001600160401b0381166001600160401b038316115f14613038575090565b905090565b613046816128f9565b906101206130566020830161259c565b916001600160401b0361306b6040830161259c565b6130776060840161259c565b61308a612cfb612d3760a087018761250a565b5190209061309a60c0860161253f565b926040519760208901997fb1d762f84fedbe1e0ece12f0e7998a906c4bfb7811df04c21729d616a6c327738b526001600160801b03191660408a015260018060a01b0316606089015260018060a01b0316608088015260018060a01b031660a0870152608084013560c087015260e08601521661010084015260e0810135828401526101008101356101408401520135610160820152610160815261297961018082612341565b307f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316148061322e575b1561319c577f000000000000000000000000000000000000000000000000000000000000000090565b60405160208101907f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f82527f000000000000000000000000000000000000000000000000000000000000000060408201527f000000000000000000000000000000000000000000000000000000000000000060608201524660808201523060a082015260a0815261297960c082612341565b507f00000000000000000000000000000000000000000000000000000000000000004614613173565b90604183036132815761327a9250602081013591604082359201355f1a90613494565b9192909190565b50505f9160029190565b60ff811690601f82116132ba57604051916132a7604084612341565b6020808452838101919036833783525290565b632cd44ac360e21b5f5260045ffd5b8060401c906bffffffff0000000000000000821663ffffffff60c01b82161760201c9163ffffffff60601b169063ffffffff60e01b1617178060101c907fff00000000000000ff00000000000000ff00000000000000ff000000000000007bff00000000000000ff00000000000000ff00000000000000ff0000007aff00000000000000ff00000000000000ff00000000000000ff000084167eff00000000000000ff00000000000000ff00000000000000ff00000000000084161760081c9316911617177f0f000f000f000f000f000f000f000f000f000f000f000f000f000f000f000f007e0f000f000f000f000f000f000f000f000f000f000f000f000f000f000f000f8260081c169160041c1617807f30303030303030303030303030303030303030303030303030303030303030300190817f3030303030303030303030303030303030303030303030303030303030303030116116b8577f060606060606060606060606060606060606060606060606060606060606060681018091116116b8577f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f9060041c166027810290808204602714901517156116b857613491916122c4565b90565b91907f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0841161350b579160209360809260ff5f9560405194855216868401526040830152606082015282805260015afa15611402575f516001600160a01b0381161561350157905f905f90565b505f906001905f90565b5050505f916003919056fe9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f00a164736f6c6343000825000a",
}

// TaskRegistry is an auto generated Go binding around an Ethereum contract.
type TaskRegistry struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *TaskRegistry) GetABI() abi.ABI {
	return c.abi
}

// NewTaskRegistry creates a new instance of TaskRegistry.
func NewTaskRegistry() *TaskRegistry {
	parsed, err := TaskRegistryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &TaskRegistry{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *TaskRegistry) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address arbitration_, uint64 reviewPeriod_) returns()
func (taskRegistry *TaskRegistry) PackConstructor(arbitration_ common.Address, reviewPeriod_ uint64) []byte {
	enc, err := taskRegistry.abi.Pack("", arbitration_, reviewPeriod_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackBPS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x249d39e9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function BPS() view returns(uint256)
func (taskRegistry *TaskRegistry) PackBPS() []byte {
	enc, err := taskRegistry.abi.Pack("BPS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBPS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x249d39e9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function BPS() view returns(uint256)
func (taskRegistry *TaskRegistry) TryPackBPS() ([]byte, error) {
	return taskRegistry.abi.Pack("BPS")
}

// UnpackBPS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x249d39e9.
//
// Solidity: function BPS() view returns(uint256)
func (taskRegistry *TaskRegistry) UnpackBPS(data []byte) (*big.Int, error) {
	out, err := taskRegistry.abi.Unpack("BPS", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXMILESTONES is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4c05abeb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_MILESTONES() view returns(uint256)
func (taskRegistry *TaskRegistry) PackMAXMILESTONES() []byte {
	enc, err := taskRegistry.abi.Pack("MAX_MILESTONES")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXMILESTONES is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4c05abeb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_MILESTONES() view returns(uint256)
func (taskRegistry *TaskRegistry) TryPackMAXMILESTONES() ([]byte, error) {
	return taskRegistry.abi.Pack("MAX_MILESTONES")
}

// UnpackMAXMILESTONES is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4c05abeb.
//
// Solidity: function MAX_MILESTONES() view returns(uint256)
func (taskRegistry *TaskRegistry) UnpackMAXMILESTONES(data []byte) (*big.Int, error) {
	out, err := taskRegistry.abi.Unpack("MAX_MILESTONES", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXREVISIONS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd883dacc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_REVISIONS() view returns(uint8)
func (taskRegistry *TaskRegistry) PackMAXREVISIONS() []byte {
	enc, err := taskRegistry.abi.Pack("MAX_REVISIONS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXREVISIONS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd883dacc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_REVISIONS() view returns(uint8)
func (taskRegistry *TaskRegistry) TryPackMAXREVISIONS() ([]byte, error) {
	return taskRegistry.abi.Pack("MAX_REVISIONS")
}

// UnpackMAXREVISIONS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd883dacc.
//
// Solidity: function MAX_REVISIONS() view returns(uint8)
func (taskRegistry *TaskRegistry) UnpackMAXREVISIONS(data []byte) (uint8, error) {
	out, err := taskRegistry.abi.Unpack("MAX_REVISIONS", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackAmend is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x69d649d4.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function amend(bytes32 taskId, (uint256[],uint64,bytes32,uint256) a, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task, bytes posterSig, bytes workerSig) payable returns()
func (taskRegistry *TaskRegistry) PackAmend(taskId [32]byte, a Amendment, task Task, posterSig []byte, workerSig []byte) []byte {
	enc, err := taskRegistry.abi.Pack("amend", taskId, a, task, posterSig, workerSig)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAmend is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x69d649d4.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function amend(bytes32 taskId, (uint256[],uint64,bytes32,uint256) a, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task, bytes posterSig, bytes workerSig) payable returns()
func (taskRegistry *TaskRegistry) TryPackAmend(taskId [32]byte, a Amendment, task Task, posterSig []byte, workerSig []byte) ([]byte, error) {
	return taskRegistry.abi.Pack("amend", taskId, a, task, posterSig, workerSig)
}

// PackAmendmentDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcd1c4527.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function amendmentDigest(bytes32 taskId, (uint256[],uint64,bytes32,uint256) a) view returns(bytes32)
func (taskRegistry *TaskRegistry) PackAmendmentDigest(taskId [32]byte, a Amendment) []byte {
	enc, err := taskRegistry.abi.Pack("amendmentDigest", taskId, a)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAmendmentDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcd1c4527.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function amendmentDigest(bytes32 taskId, (uint256[],uint64,bytes32,uint256) a) view returns(bytes32)
func (taskRegistry *TaskRegistry) TryPackAmendmentDigest(taskId [32]byte, a Amendment) ([]byte, error) {
	return taskRegistry.abi.Pack("amendmentDigest", taskId, a)
}

// UnpackAmendmentDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xcd1c4527.
//
// Solidity: function amendmentDigest(bytes32 taskId, (uint256[],uint64,bytes32,uint256) a) view returns(bytes32)
func (taskRegistry *TaskRegistry) UnpackAmendmentDigest(data []byte) ([32]byte, error) {
	out, err := taskRegistry.abi.Unpack("amendmentDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackArbitration is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9b732350.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function arbitration() view returns(address)
func (taskRegistry *TaskRegistry) PackArbitration() []byte {
	enc, err := taskRegistry.abi.Pack("arbitration")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackArbitration is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9b732350.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function arbitration() view returns(address)
func (taskRegistry *TaskRegistry) TryPackArbitration() ([]byte, error) {
	return taskRegistry.abi.Pack("arbitration")
}

// UnpackArbitration is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9b732350.
//
// Solidity: function arbitration() view returns(address)
func (taskRegistry *TaskRegistry) UnpackArbitration(data []byte) (common.Address, error) {
	out, err := taskRegistry.abi.Unpack("arbitration", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackCancelDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa1220d75.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function cancelDigest(bytes32 taskId, uint256 nonce) view returns(bytes32)
func (taskRegistry *TaskRegistry) PackCancelDigest(taskId [32]byte, nonce *big.Int) []byte {
	enc, err := taskRegistry.abi.Pack("cancelDigest", taskId, nonce)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCancelDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa1220d75.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function cancelDigest(bytes32 taskId, uint256 nonce) view returns(bytes32)
func (taskRegistry *TaskRegistry) TryPackCancelDigest(taskId [32]byte, nonce *big.Int) ([]byte, error) {
	return taskRegistry.abi.Pack("cancelDigest", taskId, nonce)
}

// UnpackCancelDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa1220d75.
//
// Solidity: function cancelDigest(bytes32 taskId, uint256 nonce) view returns(bytes32)
func (taskRegistry *TaskRegistry) UnpackCancelDigest(data []byte) ([32]byte, error) {
	out, err := taskRegistry.abi.Unpack("cancelDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackClaimUnanswered is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x69d15f78.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function claimUnanswered(bytes32 taskId, uint256 milestone, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) PackClaimUnanswered(taskId [32]byte, milestone *big.Int, task Task) []byte {
	enc, err := taskRegistry.abi.Pack("claimUnanswered", taskId, milestone, task)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackClaimUnanswered is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x69d15f78.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function claimUnanswered(bytes32 taskId, uint256 milestone, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) TryPackClaimUnanswered(taskId [32]byte, milestone *big.Int, task Task) ([]byte, error) {
	return taskRegistry.abi.Pack("claimUnanswered", taskId, milestone, task)
}

// PackCreateTask is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd5673e1c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function createTask((bytes16,address,address,address,uint256,uint256[],uint64,bytes32,bytes32,uint256) s, bytes posterSig, bytes workerSig) payable returns(bytes32 taskId)
func (taskRegistry *TaskRegistry) PackCreateTask(s Settlement, posterSig []byte, workerSig []byte) []byte {
	enc, err := taskRegistry.abi.Pack("createTask", s, posterSig, workerSig)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCreateTask is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd5673e1c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function createTask((bytes16,address,address,address,uint256,uint256[],uint64,bytes32,bytes32,uint256) s, bytes posterSig, bytes workerSig) payable returns(bytes32 taskId)
func (taskRegistry *TaskRegistry) TryPackCreateTask(s Settlement, posterSig []byte, workerSig []byte) ([]byte, error) {
	return taskRegistry.abi.Pack("createTask", s, posterSig, workerSig)
}

// UnpackCreateTask is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd5673e1c.
//
// Solidity: function createTask((bytes16,address,address,address,uint256,uint256[],uint64,bytes32,bytes32,uint256) s, bytes posterSig, bytes workerSig) payable returns(bytes32 taskId)
func (taskRegistry *TaskRegistry) UnpackCreateTask(data []byte) ([32]byte, error) {
	out, err := taskRegistry.abi.Unpack("createTask", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (taskRegistry *TaskRegistry) PackDomainSeparator() []byte {
	enc, err := taskRegistry.abi.Pack("domainSeparator")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (taskRegistry *TaskRegistry) TryPackDomainSeparator() ([]byte, error) {
	return taskRegistry.abi.Pack("domainSeparator")
}

// UnpackDomainSeparator is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (taskRegistry *TaskRegistry) UnpackDomainSeparator(data []byte) ([32]byte, error) {
	out, err := taskRegistry.abi.Unpack("domainSeparator", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (taskRegistry *TaskRegistry) PackEip712Domain() []byte {
	enc, err := taskRegistry.abi.Pack("eip712Domain")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (taskRegistry *TaskRegistry) TryPackEip712Domain() ([]byte, error) {
	return taskRegistry.abi.Pack("eip712Domain")
}

// Eip712DomainOutput serves as a container for the return parameters of contract
// method Eip712Domain.
type Eip712DomainOutput struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}

// UnpackEip712Domain is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (taskRegistry *TaskRegistry) UnpackEip712Domain(data []byte) (Eip712DomainOutput, error) {
	out, err := taskRegistry.abi.Unpack("eip712Domain", data)
	outstruct := new(Eip712DomainOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Fields = *abi.ConvertType(out[0], new([1]byte)).(*[1]byte)
	outstruct.Name = *abi.ConvertType(out[1], new(string)).(*string)
	outstruct.Version = *abi.ConvertType(out[2], new(string)).(*string)
	outstruct.ChainId = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	outstruct.VerifyingContract = *abi.ConvertType(out[4], new(common.Address)).(*common.Address)
	outstruct.Salt = *abi.ConvertType(out[5], new([32]byte)).(*[32]byte)
	outstruct.Extensions = *abi.ConvertType(out[6], new([]*big.Int)).(*[]*big.Int)
	return *outstruct, nil
}

// PackHashTask is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4c1433eb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function hashTask((address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) pure returns(bytes32)
func (taskRegistry *TaskRegistry) PackHashTask(task Task) []byte {
	enc, err := taskRegistry.abi.Pack("hashTask", task)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHashTask is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4c1433eb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function hashTask((address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) pure returns(bytes32)
func (taskRegistry *TaskRegistry) TryPackHashTask(task Task) ([]byte, error) {
	return taskRegistry.abi.Pack("hashTask", task)
}

// UnpackHashTask is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4c1433eb.
//
// Solidity: function hashTask((address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) pure returns(bytes32)
func (taskRegistry *TaskRegistry) UnpackHashTask(data []byte) ([32]byte, error) {
	out, err := taskRegistry.abi.Unpack("hashTask", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackMutualCancel is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x41913516.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mutualCancel(bytes32 taskId, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task, bytes posterSig, bytes workerSig) returns()
func (taskRegistry *TaskRegistry) PackMutualCancel(taskId [32]byte, task Task, posterSig []byte, workerSig []byte) []byte {
	enc, err := taskRegistry.abi.Pack("mutualCancel", taskId, task, posterSig, workerSig)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMutualCancel is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x41913516.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mutualCancel(bytes32 taskId, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task, bytes posterSig, bytes workerSig) returns()
func (taskRegistry *TaskRegistry) TryPackMutualCancel(taskId [32]byte, task Task, posterSig []byte, workerSig []byte) ([]byte, error) {
	return taskRegistry.abi.Pack("mutualCancel", taskId, task, posterSig, workerSig)
}

// PackOpenDispute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x71431508.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function openDispute(bytes32 taskId, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) payable returns(uint256 disputeId)
func (taskRegistry *TaskRegistry) PackOpenDispute(taskId [32]byte, task Task) []byte {
	enc, err := taskRegistry.abi.Pack("openDispute", taskId, task)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOpenDispute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x71431508.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function openDispute(bytes32 taskId, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) payable returns(uint256 disputeId)
func (taskRegistry *TaskRegistry) TryPackOpenDispute(taskId [32]byte, task Task) ([]byte, error) {
	return taskRegistry.abi.Pack("openDispute", taskId, task)
}

// UnpackOpenDispute is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x71431508.
//
// Solidity: function openDispute(bytes32 taskId, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) payable returns(uint256 disputeId)
func (taskRegistry *TaskRegistry) UnpackOpenDispute(data []byte) (*big.Int, error) {
	out, err := taskRegistry.abi.Unpack("openDispute", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackOwed is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x28079e4a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owed(address token, address account) view returns(uint256 amount)
func (taskRegistry *TaskRegistry) PackOwed(token common.Address, account common.Address) []byte {
	enc, err := taskRegistry.abi.Pack("owed", token, account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwed is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x28079e4a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owed(address token, address account) view returns(uint256 amount)
func (taskRegistry *TaskRegistry) TryPackOwed(token common.Address, account common.Address) ([]byte, error) {
	return taskRegistry.abi.Pack("owed", token, account)
}

// UnpackOwed is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x28079e4a.
//
// Solidity: function owed(address token, address account) view returns(uint256 amount)
func (taskRegistry *TaskRegistry) UnpackOwed(data []byte) (*big.Int, error) {
	out, err := taskRegistry.abi.Unpack("owed", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackReclaimExpired is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd7f3baae.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function reclaimExpired(bytes32 taskId, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) PackReclaimExpired(taskId [32]byte, task Task) []byte {
	enc, err := taskRegistry.abi.Pack("reclaimExpired", taskId, task)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReclaimExpired is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd7f3baae.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function reclaimExpired(bytes32 taskId, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) TryPackReclaimExpired(taskId [32]byte, task Task) ([]byte, error) {
	return taskRegistry.abi.Pack("reclaimExpired", taskId, task)
}

// PackReleaseMilestone is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x395fa72d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function releaseMilestone(bytes32 taskId, uint256 milestone, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) PackReleaseMilestone(taskId [32]byte, milestone *big.Int, task Task) []byte {
	enc, err := taskRegistry.abi.Pack("releaseMilestone", taskId, milestone, task)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReleaseMilestone is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x395fa72d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function releaseMilestone(bytes32 taskId, uint256 milestone, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) TryPackReleaseMilestone(taskId [32]byte, milestone *big.Int, task Task) ([]byte, error) {
	return taskRegistry.abi.Pack("releaseMilestone", taskId, milestone, task)
}

// PackReleasePart is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8d378859.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function releasePart(bytes32 taskId, uint256 milestone, uint256 amount, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) PackReleasePart(taskId [32]byte, milestone *big.Int, amount *big.Int, task Task) []byte {
	enc, err := taskRegistry.abi.Pack("releasePart", taskId, milestone, amount, task)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReleasePart is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8d378859.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function releasePart(bytes32 taskId, uint256 milestone, uint256 amount, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) TryPackReleasePart(taskId [32]byte, milestone *big.Int, amount *big.Int, task Task) ([]byte, error) {
	return taskRegistry.abi.Pack("releasePart", taskId, milestone, amount, task)
}

// PackReplaceWorker is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc9a6919a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function replaceWorker(bytes32 taskId, (address,bytes32,uint256) r, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task, bytes posterSig, bytes workerSig) returns()
func (taskRegistry *TaskRegistry) PackReplaceWorker(taskId [32]byte, r Replacement, task Task, posterSig []byte, workerSig []byte) []byte {
	enc, err := taskRegistry.abi.Pack("replaceWorker", taskId, r, task, posterSig, workerSig)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReplaceWorker is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc9a6919a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function replaceWorker(bytes32 taskId, (address,bytes32,uint256) r, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task, bytes posterSig, bytes workerSig) returns()
func (taskRegistry *TaskRegistry) TryPackReplaceWorker(taskId [32]byte, r Replacement, task Task, posterSig []byte, workerSig []byte) ([]byte, error) {
	return taskRegistry.abi.Pack("replaceWorker", taskId, r, task, posterSig, workerSig)
}

// PackReplacementDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x10fb31f8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function replacementDigest(bytes32 taskId, (address,bytes32,uint256) r) view returns(bytes32)
func (taskRegistry *TaskRegistry) PackReplacementDigest(taskId [32]byte, r Replacement) []byte {
	enc, err := taskRegistry.abi.Pack("replacementDigest", taskId, r)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReplacementDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x10fb31f8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function replacementDigest(bytes32 taskId, (address,bytes32,uint256) r) view returns(bytes32)
func (taskRegistry *TaskRegistry) TryPackReplacementDigest(taskId [32]byte, r Replacement) ([]byte, error) {
	return taskRegistry.abi.Pack("replacementDigest", taskId, r)
}

// UnpackReplacementDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x10fb31f8.
//
// Solidity: function replacementDigest(bytes32 taskId, (address,bytes32,uint256) r) view returns(bytes32)
func (taskRegistry *TaskRegistry) UnpackReplacementDigest(data []byte) ([32]byte, error) {
	out, err := taskRegistry.abi.Unpack("replacementDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackRequestRevision is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9d95a731.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function requestRevision(bytes32 taskId, uint256 milestone, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) PackRequestRevision(taskId [32]byte, milestone *big.Int, task Task) []byte {
	enc, err := taskRegistry.abi.Pack("requestRevision", taskId, milestone, task)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRequestRevision is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9d95a731.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function requestRevision(bytes32 taskId, uint256 milestone, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) TryPackRequestRevision(taskId [32]byte, milestone *big.Int, task Task) ([]byte, error) {
	return taskRegistry.abi.Pack("requestRevision", taskId, milestone, task)
}

// PackReviewPeriod is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3b249810.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function reviewPeriod() view returns(uint64)
func (taskRegistry *TaskRegistry) PackReviewPeriod() []byte {
	enc, err := taskRegistry.abi.Pack("reviewPeriod")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReviewPeriod is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3b249810.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function reviewPeriod() view returns(uint64)
func (taskRegistry *TaskRegistry) TryPackReviewPeriod() ([]byte, error) {
	return taskRegistry.abi.Pack("reviewPeriod")
}

// UnpackReviewPeriod is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3b249810.
//
// Solidity: function reviewPeriod() view returns(uint64)
func (taskRegistry *TaskRegistry) UnpackReviewPeriod(data []byte) (uint64, error) {
	out, err := taskRegistry.abi.Unpack("reviewPeriod", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackSettleDispute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6ead8500.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settleDispute(bytes32 taskId, (address,address,address,uint256,address,uint256) terms, uint256 workerBps, address bondTo) returns()
func (taskRegistry *TaskRegistry) PackSettleDispute(taskId [32]byte, terms DisputeTerms, workerBps *big.Int, bondTo common.Address) []byte {
	enc, err := taskRegistry.abi.Pack("settleDispute", taskId, terms, workerBps, bondTo)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSettleDispute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6ead8500.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function settleDispute(bytes32 taskId, (address,address,address,uint256,address,uint256) terms, uint256 workerBps, address bondTo) returns()
func (taskRegistry *TaskRegistry) TryPackSettleDispute(taskId [32]byte, terms DisputeTerms, workerBps *big.Int, bondTo common.Address) ([]byte, error) {
	return taskRegistry.abi.Pack("settleDispute", taskId, terms, workerBps, bondTo)
}

// PackSettlementDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xad194d99.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settlementDigest((bytes16,address,address,address,uint256,uint256[],uint64,bytes32,bytes32,uint256) s) view returns(bytes32)
func (taskRegistry *TaskRegistry) PackSettlementDigest(s Settlement) []byte {
	enc, err := taskRegistry.abi.Pack("settlementDigest", s)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSettlementDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xad194d99.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function settlementDigest((bytes16,address,address,address,uint256,uint256[],uint64,bytes32,bytes32,uint256) s) view returns(bytes32)
func (taskRegistry *TaskRegistry) TryPackSettlementDigest(s Settlement) ([]byte, error) {
	return taskRegistry.abi.Pack("settlementDigest", s)
}

// UnpackSettlementDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xad194d99.
//
// Solidity: function settlementDigest((bytes16,address,address,address,uint256,uint256[],uint64,bytes32,bytes32,uint256) s) view returns(bytes32)
func (taskRegistry *TaskRegistry) UnpackSettlementDigest(data []byte) ([32]byte, error) {
	out, err := taskRegistry.abi.Unpack("settlementDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackSubmitProof is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x982a9bcd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function submitProof(bytes32 taskId, uint256 milestone, string proofCid, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) PackSubmitProof(taskId [32]byte, milestone *big.Int, proofCid string, task Task) []byte {
	enc, err := taskRegistry.abi.Pack("submitProof", taskId, milestone, proofCid, task)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSubmitProof is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x982a9bcd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function submitProof(bytes32 taskId, uint256 milestone, string proofCid, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task) returns()
func (taskRegistry *TaskRegistry) TryPackSubmitProof(taskId [32]byte, milestone *big.Int, proofCid string, task Task) ([]byte, error) {
	return taskRegistry.abi.Pack("submitProof", taskId, milestone, proofCid, task)
}

// PackTaskState is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9fb24cfa.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function taskState(bytes32 taskId) view returns(bytes32 stateHash)
func (taskRegistry *TaskRegistry) PackTaskState(taskId [32]byte) []byte {
	enc, err := taskRegistry.abi.Pack("taskState", taskId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTaskState is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9fb24cfa.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function taskState(bytes32 taskId) view returns(bytes32 stateHash)
func (taskRegistry *TaskRegistry) TryPackTaskState(taskId [32]byte) ([]byte, error) {
	return taskRegistry.abi.Pack("taskState", taskId)
}

// UnpackTaskState is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9fb24cfa.
//
// Solidity: function taskState(bytes32 taskId) view returns(bytes32 stateHash)
func (taskRegistry *TaskRegistry) UnpackTaskState(data []byte) ([32]byte, error) {
	out, err := taskRegistry.abi.Unpack("taskState", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf3fef3a3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function withdraw(address token, uint256 amount) returns()
func (taskRegistry *TaskRegistry) PackWithdraw(token common.Address, amount *big.Int) []byte {
	enc, err := taskRegistry.abi.Pack("withdraw", token, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf3fef3a3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function withdraw(address token, uint256 amount) returns()
func (taskRegistry *TaskRegistry) TryPackWithdraw(token common.Address, amount *big.Int) ([]byte, error) {
	return taskRegistry.abi.Pack("withdraw", token, amount)
}

// TaskRegistryCredited represents a Credited event raised by the TaskRegistry contract.
type TaskRegistryCredited struct {
	TaskId  [32]byte
	Account common.Address
	Token   common.Address
	Amount  *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const TaskRegistryCreditedEventName = "Credited"

// ContractEventName returns the user-defined event name.
func (TaskRegistryCredited) ContractEventName() string {
	return TaskRegistryCreditedEventName
}

// UnpackCreditedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Credited(bytes32 indexed taskId, address indexed account, address indexed token, uint256 amount)
func (taskRegistry *TaskRegistry) UnpackCreditedEvent(log *types.Log) (*TaskRegistryCredited, error) {
	event := "Credited"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryCredited)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryDisputeOpened represents a DisputeOpened event raised by the TaskRegistry contract.
type TaskRegistryDisputeOpened struct {
	TaskId [32]byte
	Opener common.Address
	Escrow *big.Int
	Bond   *big.Int
	Raw    *types.Log // Blockchain specific contextual infos
}

const TaskRegistryDisputeOpenedEventName = "DisputeOpened"

// ContractEventName returns the user-defined event name.
func (TaskRegistryDisputeOpened) ContractEventName() string {
	return TaskRegistryDisputeOpenedEventName
}

// UnpackDisputeOpenedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DisputeOpened(bytes32 indexed taskId, address indexed opener, uint256 escrow, uint256 bond)
func (taskRegistry *TaskRegistry) UnpackDisputeOpenedEvent(log *types.Log) (*TaskRegistryDisputeOpened, error) {
	event := "DisputeOpened"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryDisputeOpened)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryDisputeSettled represents a DisputeSettled event raised by the TaskRegistry contract.
type TaskRegistryDisputeSettled struct {
	TaskId       [32]byte
	WorkerAmount *big.Int
	PosterAmount *big.Int
	BondTo       common.Address
	Raw          *types.Log // Blockchain specific contextual infos
}

const TaskRegistryDisputeSettledEventName = "DisputeSettled"

// ContractEventName returns the user-defined event name.
func (TaskRegistryDisputeSettled) ContractEventName() string {
	return TaskRegistryDisputeSettledEventName
}

// UnpackDisputeSettledEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DisputeSettled(bytes32 indexed taskId, uint256 workerAmount, uint256 posterAmount, address bondTo)
func (taskRegistry *TaskRegistry) UnpackDisputeSettledEvent(log *types.Log) (*TaskRegistryDisputeSettled, error) {
	event := "DisputeSettled"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryDisputeSettled)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryEIP712DomainChanged represents a EIP712DomainChanged event raised by the TaskRegistry contract.
type TaskRegistryEIP712DomainChanged struct {
	Raw *types.Log // Blockchain specific contextual infos
}

const TaskRegistryEIP712DomainChangedEventName = "EIP712DomainChanged"

// ContractEventName returns the user-defined event name.
func (TaskRegistryEIP712DomainChanged) ContractEventName() string {
	return TaskRegistryEIP712DomainChangedEventName
}

// UnpackEIP712DomainChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EIP712DomainChanged()
func (taskRegistry *TaskRegistry) UnpackEIP712DomainChangedEvent(log *types.Log) (*TaskRegistryEIP712DomainChanged, error) {
	event := "EIP712DomainChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryEIP712DomainChanged)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryEscrowRefunded represents a EscrowRefunded event raised by the TaskRegistry contract.
type TaskRegistryEscrowRefunded struct {
	TaskId    [32]byte
	Amount    *big.Int
	Cancelled bool
	Raw       *types.Log // Blockchain specific contextual infos
}

const TaskRegistryEscrowRefundedEventName = "EscrowRefunded"

// ContractEventName returns the user-defined event name.
func (TaskRegistryEscrowRefunded) ContractEventName() string {
	return TaskRegistryEscrowRefundedEventName
}

// UnpackEscrowRefundedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EscrowRefunded(bytes32 indexed taskId, uint256 amount, bool cancelled)
func (taskRegistry *TaskRegistry) UnpackEscrowRefundedEvent(log *types.Log) (*TaskRegistryEscrowRefunded, error) {
	event := "EscrowRefunded"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryEscrowRefunded)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryMetaEvidence represents a MetaEvidence event raised by the TaskRegistry contract.
type TaskRegistryMetaEvidence struct {
	MetaEvidenceID *big.Int
	Evidence       string
	Raw            *types.Log // Blockchain specific contextual infos
}

const TaskRegistryMetaEvidenceEventName = "MetaEvidence"

// ContractEventName returns the user-defined event name.
func (TaskRegistryMetaEvidence) ContractEventName() string {
	return TaskRegistryMetaEvidenceEventName
}

// UnpackMetaEvidenceEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event MetaEvidence(uint256 indexed _metaEvidenceID, string _evidence)
func (taskRegistry *TaskRegistry) UnpackMetaEvidenceEvent(log *types.Log) (*TaskRegistryMetaEvidence, error) {
	event := "MetaEvidence"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryMetaEvidence)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryMilestoneReleased represents a MilestoneReleased event raised by the TaskRegistry contract.
type TaskRegistryMilestoneReleased struct {
	TaskId     [32]byte
	Milestone  *big.Int
	Amount     *big.Int
	Unanswered bool
	Raw        *types.Log // Blockchain specific contextual infos
}

const TaskRegistryMilestoneReleasedEventName = "MilestoneReleased"

// ContractEventName returns the user-defined event name.
func (TaskRegistryMilestoneReleased) ContractEventName() string {
	return TaskRegistryMilestoneReleasedEventName
}

// UnpackMilestoneReleasedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event MilestoneReleased(bytes32 indexed taskId, uint256 indexed milestone, uint256 amount, bool unanswered)
func (taskRegistry *TaskRegistry) UnpackMilestoneReleasedEvent(log *types.Log) (*TaskRegistryMilestoneReleased, error) {
	event := "MilestoneReleased"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryMilestoneReleased)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryPartReleased represents a PartReleased event raised by the TaskRegistry contract.
type TaskRegistryPartReleased struct {
	TaskId    [32]byte
	Milestone *big.Int
	Amount    *big.Int
	Released  *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const TaskRegistryPartReleasedEventName = "PartReleased"

// ContractEventName returns the user-defined event name.
func (TaskRegistryPartReleased) ContractEventName() string {
	return TaskRegistryPartReleasedEventName
}

// UnpackPartReleasedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event PartReleased(bytes32 indexed taskId, uint256 indexed milestone, uint256 amount, uint256 released)
func (taskRegistry *TaskRegistry) UnpackPartReleasedEvent(log *types.Log) (*TaskRegistryPartReleased, error) {
	event := "PartReleased"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryPartReleased)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryProofSubmitted represents a ProofSubmitted event raised by the TaskRegistry contract.
type TaskRegistryProofSubmitted struct {
	TaskId    [32]byte
	Milestone *big.Int
	ProofCid  string
	Raw       *types.Log // Blockchain specific contextual infos
}

const TaskRegistryProofSubmittedEventName = "ProofSubmitted"

// ContractEventName returns the user-defined event name.
func (TaskRegistryProofSubmitted) ContractEventName() string {
	return TaskRegistryProofSubmittedEventName
}

// UnpackProofSubmittedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ProofSubmitted(bytes32 indexed taskId, uint256 indexed milestone, string proofCid)
func (taskRegistry *TaskRegistry) UnpackProofSubmittedEvent(log *types.Log) (*TaskRegistryProofSubmitted, error) {
	event := "ProofSubmitted"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryProofSubmitted)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryRevisionRequested represents a RevisionRequested event raised by the TaskRegistry contract.
type TaskRegistryRevisionRequested struct {
	TaskId        [32]byte
	Milestone     *big.Int
	Revisions     uint8
	ResubmitUntil uint64
	Raw           *types.Log // Blockchain specific contextual infos
}

const TaskRegistryRevisionRequestedEventName = "RevisionRequested"

// ContractEventName returns the user-defined event name.
func (TaskRegistryRevisionRequested) ContractEventName() string {
	return TaskRegistryRevisionRequestedEventName
}

// UnpackRevisionRequestedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RevisionRequested(bytes32 indexed taskId, uint256 indexed milestone, uint8 revisions, uint64 resubmitUntil)
func (taskRegistry *TaskRegistry) UnpackRevisionRequestedEvent(log *types.Log) (*TaskRegistryRevisionRequested, error) {
	event := "RevisionRequested"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryRevisionRequested)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryTaskAmended represents a TaskAmended event raised by the TaskRegistry contract.
type TaskRegistryTaskAmended struct {
	TaskId    [32]byte
	Nonce     uint64
	TermsHash [32]byte
	Raw       *types.Log // Blockchain specific contextual infos
}

const TaskRegistryTaskAmendedEventName = "TaskAmended"

// ContractEventName returns the user-defined event name.
func (TaskRegistryTaskAmended) ContractEventName() string {
	return TaskRegistryTaskAmendedEventName
}

// UnpackTaskAmendedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event TaskAmended(bytes32 indexed taskId, uint64 nonce, bytes32 termsHash)
func (taskRegistry *TaskRegistry) UnpackTaskAmendedEvent(log *types.Log) (*TaskRegistryTaskAmended, error) {
	event := "TaskAmended"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryTaskAmended)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryTaskCreated represents a TaskCreated event raised by the TaskRegistry contract.
type TaskRegistryTaskCreated struct {
	TaskId            [32]byte
	NegotiationId     [16]byte
	AcceptedOfferHash [32]byte
	Raw               *types.Log // Blockchain specific contextual infos
}

const TaskRegistryTaskCreatedEventName = "TaskCreated"

// ContractEventName returns the user-defined event name.
func (TaskRegistryTaskCreated) ContractEventName() string {
	return TaskRegistryTaskCreatedEventName
}

// UnpackTaskCreatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event TaskCreated(bytes32 indexed taskId, bytes16 indexed negotiationId, bytes32 acceptedOfferHash)
func (taskRegistry *TaskRegistry) UnpackTaskCreatedEvent(log *types.Log) (*TaskRegistryTaskCreated, error) {
	event := "TaskCreated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryTaskCreated)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryTaskUpdated represents a TaskUpdated event raised by the TaskRegistry contract.
type TaskRegistryTaskUpdated struct {
	TaskId [32]byte
	Task   Task
	Raw    *types.Log // Blockchain specific contextual infos
}

const TaskRegistryTaskUpdatedEventName = "TaskUpdated"

// ContractEventName returns the user-defined event name.
func (TaskRegistryTaskUpdated) ContractEventName() string {
	return TaskRegistryTaskUpdatedEventName
}

// UnpackTaskUpdatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event TaskUpdated(bytes32 indexed taskId, (address,address,address,uint64,uint64,uint8,bytes32,(uint256,uint256,uint64,uint8,uint8)[]) task)
func (taskRegistry *TaskRegistry) UnpackTaskUpdatedEvent(log *types.Log) (*TaskRegistryTaskUpdated, error) {
	event := "TaskUpdated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryTaskUpdated)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryWithdrawn represents a Withdrawn event raised by the TaskRegistry contract.
type TaskRegistryWithdrawn struct {
	Account common.Address
	Token   common.Address
	Amount  *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const TaskRegistryWithdrawnEventName = "Withdrawn"

// ContractEventName returns the user-defined event name.
func (TaskRegistryWithdrawn) ContractEventName() string {
	return TaskRegistryWithdrawnEventName
}

// UnpackWithdrawnEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Withdrawn(address indexed account, address indexed token, uint256 amount)
func (taskRegistry *TaskRegistry) UnpackWithdrawnEvent(log *types.Log) (*TaskRegistryWithdrawn, error) {
	event := "Withdrawn"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryWithdrawn)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskRegistryWorkerReplaced represents a WorkerReplaced event raised by the TaskRegistry contract.
type TaskRegistryWorkerReplaced struct {
	TaskId      [32]byte
	OldWorker   common.Address
	NewWorker   common.Address
	HandoffHash [32]byte
	Raw         *types.Log // Blockchain specific contextual infos
}

const TaskRegistryWorkerReplacedEventName = "WorkerReplaced"

// ContractEventName returns the user-defined event name.
func (TaskRegistryWorkerReplaced) ContractEventName() string {
	return TaskRegistryWorkerReplacedEventName
}

// UnpackWorkerReplacedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event WorkerReplaced(bytes32 indexed taskId, address indexed oldWorker, address indexed newWorker, bytes32 handoffHash)
func (taskRegistry *TaskRegistry) UnpackWorkerReplacedEvent(log *types.Log) (*TaskRegistryWorkerReplaced, error) {
	event := "WorkerReplaced"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskRegistryWorkerReplaced)
	if len(log.Data) > 0 {
		if err := taskRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (taskRegistry *TaskRegistry) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["AmountMismatch"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackAmountMismatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["ArbitrationMismatch"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackArbitrationMismatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["BadAmendment"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackBadAmendmentError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["BadMilestone"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackBadMilestoneError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["BadMilestones"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackBadMilestonesError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["BadPart"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackBadPartError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["BadShare"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackBadShareError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["BadValue"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackBadValueError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["BadWorker"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackBadWorkerError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["DeadlineNotPassed"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackDeadlineNotPassedError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["DeadlinePassed"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackDeadlinePassedError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["DigestUsed"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackDigestUsedError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["EmptyProof"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackEmptyProofError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["InsufficientBalance"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackInsufficientBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["InvalidShortString"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackInvalidShortStringError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["MalformedSignature"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackMalformedSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["NoSuchMilestone"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackNoSuchMilestoneError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["NotActive"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackNotActiveError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["NotArbitration"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackNotArbitrationError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["NotParty"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackNotPartyError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["NotPoster"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackNotPosterError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["NotWorker"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackNotWorkerError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["NothingInEscrow"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackNothingInEscrowError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["NothingToRefund"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackNothingToRefundError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["ReentrancyGuardReentrantCall"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackReentrancyGuardReentrantCallError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["ReviewPending"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackReviewPendingError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["ReviewPeriodOver"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackReviewPeriodOverError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["SafeERC20FailedOperation"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackSafeERC20FailedOperationError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["StaleNonce"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackStaleNonceError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["StaleTask"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackStaleTaskError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["StringTooLong"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackStringTooLongError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["TokenShortfall"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackTokenShortfallError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["TooManyRevisions"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackTooManyRevisionsError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["TransferFailed"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackTransferFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["UnknownTask"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackUnknownTaskError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskRegistry.abi.Errors["WrongSigner"].ID.Bytes()[:4]) {
		return taskRegistry.UnpackWrongSignerError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// TaskRegistryAmountMismatch represents a AmountMismatch error raised by the TaskRegistry contract.
type TaskRegistryAmountMismatch struct {
	Amount *big.Int
	Sum    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AmountMismatch(uint256 amount, uint256 sum)
func TaskRegistryAmountMismatchErrorID() common.Hash {
	return common.HexToHash("0xce6b173bdc80cd4e429785d8c1033e1abb094f8a9b51d09415e0bcd51ce1e321")
}

// UnpackAmountMismatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AmountMismatch(uint256 amount, uint256 sum)
func (taskRegistry *TaskRegistry) UnpackAmountMismatchError(raw []byte) (*TaskRegistryAmountMismatch, error) {
	out := new(TaskRegistryAmountMismatch)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "AmountMismatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryArbitrationMismatch represents a ArbitrationMismatch error raised by the TaskRegistry contract.
type TaskRegistryArbitrationMismatch struct {
	Registry common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ArbitrationMismatch(address registry)
func TaskRegistryArbitrationMismatchErrorID() common.Hash {
	return common.HexToHash("0x03d9819b4670e5828472a5964ed54cdfcb93776f9e3aed1deaef7035113c36e1")
}

// UnpackArbitrationMismatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ArbitrationMismatch(address registry)
func (taskRegistry *TaskRegistry) UnpackArbitrationMismatchError(raw []byte) (*TaskRegistryArbitrationMismatch, error) {
	out := new(TaskRegistryArbitrationMismatch)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "ArbitrationMismatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryBadAmendment represents a BadAmendment error raised by the TaskRegistry contract.
type TaskRegistryBadAmendment struct {
	Milestone *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadAmendment(uint256 milestone)
func TaskRegistryBadAmendmentErrorID() common.Hash {
	return common.HexToHash("0x198b95311af48f9a64a1e3652317f7fe04416ae0976025945660b0f83c939878")
}

// UnpackBadAmendmentError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadAmendment(uint256 milestone)
func (taskRegistry *TaskRegistry) UnpackBadAmendmentError(raw []byte) (*TaskRegistryBadAmendment, error) {
	out := new(TaskRegistryBadAmendment)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "BadAmendment", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryBadMilestone represents a BadMilestone error raised by the TaskRegistry contract.
type TaskRegistryBadMilestone struct {
	Milestone *big.Int
	State     uint8
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadMilestone(uint256 milestone, uint8 state)
func TaskRegistryBadMilestoneErrorID() common.Hash {
	return common.HexToHash("0x3f4bd1f52909db6a6423cdfecb80c7154df41bda0f8545bf2a387c4df02a130d")
}

// UnpackBadMilestoneError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadMilestone(uint256 milestone, uint8 state)
func (taskRegistry *TaskRegistry) UnpackBadMilestoneError(raw []byte) (*TaskRegistryBadMilestone, error) {
	out := new(TaskRegistryBadMilestone)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "BadMilestone", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryBadMilestones represents a BadMilestones error raised by the TaskRegistry contract.
type TaskRegistryBadMilestones struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadMilestones()
func TaskRegistryBadMilestonesErrorID() common.Hash {
	return common.HexToHash("0x597e272522a2461664a635e1809ed1542fd8472ebb1b20f8366a327a1411d644")
}

// UnpackBadMilestonesError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadMilestones()
func (taskRegistry *TaskRegistry) UnpackBadMilestonesError(raw []byte) (*TaskRegistryBadMilestones, error) {
	out := new(TaskRegistryBadMilestones)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "BadMilestones", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryBadPart represents a BadPart error raised by the TaskRegistry contract.
type TaskRegistryBadPart struct {
	Amount    *big.Int
	Remaining *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadPart(uint256 amount, uint256 remaining)
func TaskRegistryBadPartErrorID() common.Hash {
	return common.HexToHash("0x5c71e43d74b1ee0e0101e4f0c57ffe2428a17667257583d5336171baa1f23570")
}

// UnpackBadPartError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadPart(uint256 amount, uint256 remaining)
func (taskRegistry *TaskRegistry) UnpackBadPartError(raw []byte) (*TaskRegistryBadPart, error) {
	out := new(TaskRegistryBadPart)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "BadPart", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryBadShare represents a BadShare error raised by the TaskRegistry contract.
type TaskRegistryBadShare struct {
	WorkerBps *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadShare(uint256 workerBps)
func TaskRegistryBadShareErrorID() common.Hash {
	return common.HexToHash("0x6c92ce272f18ab0fb143e570f1c7f51c639133474bba3be4fab88145089241c0")
}

// UnpackBadShareError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadShare(uint256 workerBps)
func (taskRegistry *TaskRegistry) UnpackBadShareError(raw []byte) (*TaskRegistryBadShare, error) {
	out := new(TaskRegistryBadShare)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "BadShare", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryBadValue represents a BadValue error raised by the TaskRegistry contract.
type TaskRegistryBadValue struct {
	Value    *big.Int
	Expected *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadValue(uint256 value, uint256 expected)
func TaskRegistryBadValueErrorID() common.Hash {
	return common.HexToHash("0x8c54e3091117be9621f1d084bb1df95b753eb26f2c0a73717088a736ad3be0cb")
}

// UnpackBadValueError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadValue(uint256 value, uint256 expected)
func (taskRegistry *TaskRegistry) UnpackBadValueError(raw []byte) (*TaskRegistryBadValue, error) {
	out := new(TaskRegistryBadValue)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "BadValue", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryBadWorker represents a BadWorker error raised by the TaskRegistry contract.
type TaskRegistryBadWorker struct {
	Worker common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadWorker(address worker)
func TaskRegistryBadWorkerErrorID() common.Hash {
	return common.HexToHash("0xc1e0a5d005e23608e16f4dfb9d5efd977c01861cf1f4d4c1466f5f55c3009b3a")
}

// UnpackBadWorkerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadWorker(address worker)
func (taskRegistry *TaskRegistry) UnpackBadWorkerError(raw []byte) (*TaskRegistryBadWorker, error) {
	out := new(TaskRegistryBadWorker)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "BadWorker", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryDeadlineNotPassed represents a DeadlineNotPassed error raised by the TaskRegistry contract.
type TaskRegistryDeadlineNotPassed struct {
	Deadline uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DeadlineNotPassed(uint64 deadline)
func TaskRegistryDeadlineNotPassedErrorID() common.Hash {
	return common.HexToHash("0x1f4899705623c85fab8845c7d24eaa5204260915a896f70890a590d5027681bb")
}

// UnpackDeadlineNotPassedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DeadlineNotPassed(uint64 deadline)
func (taskRegistry *TaskRegistry) UnpackDeadlineNotPassedError(raw []byte) (*TaskRegistryDeadlineNotPassed, error) {
	out := new(TaskRegistryDeadlineNotPassed)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "DeadlineNotPassed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryDeadlinePassed represents a DeadlinePassed error raised by the TaskRegistry contract.
type TaskRegistryDeadlinePassed struct {
	Deadline uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DeadlinePassed(uint64 deadline)
func TaskRegistryDeadlinePassedErrorID() common.Hash {
	return common.HexToHash("0x6768091307d5da213ba3ac1392311a935d1607f1020232ee01d118de33b68661")
}

// UnpackDeadlinePassedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DeadlinePassed(uint64 deadline)
func (taskRegistry *TaskRegistry) UnpackDeadlinePassedError(raw []byte) (*TaskRegistryDeadlinePassed, error) {
	out := new(TaskRegistryDeadlinePassed)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "DeadlinePassed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryDigestUsed represents a DigestUsed error raised by the TaskRegistry contract.
type TaskRegistryDigestUsed struct {
	Digest [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DigestUsed(bytes32 digest)
func TaskRegistryDigestUsedErrorID() common.Hash {
	return common.HexToHash("0xfc21f439a11fd24bc56f62ad1d9c114eb2e8c181da6a98f7e2e70781adc54b6e")
}

// UnpackDigestUsedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DigestUsed(bytes32 digest)
func (taskRegistry *TaskRegistry) UnpackDigestUsedError(raw []byte) (*TaskRegistryDigestUsed, error) {
	out := new(TaskRegistryDigestUsed)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "DigestUsed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryEmptyProof represents a EmptyProof error raised by the TaskRegistry contract.
type TaskRegistryEmptyProof struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyProof()
func TaskRegistryEmptyProofErrorID() common.Hash {
	return common.HexToHash("0x668fd6f3c09986120307c48f51de587bf8fbe63352342e4a7b693cb9e6d45f8a")
}

// UnpackEmptyProofError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyProof()
func (taskRegistry *TaskRegistry) UnpackEmptyProofError(raw []byte) (*TaskRegistryEmptyProof, error) {
	out := new(TaskRegistryEmptyProof)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "EmptyProof", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryInsufficientBalance represents a InsufficientBalance error raised by the TaskRegistry contract.
type TaskRegistryInsufficientBalance struct {
	Owed      *big.Int
	Requested *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientBalance(uint256 owed, uint256 requested)
func TaskRegistryInsufficientBalanceErrorID() common.Hash {
	return common.HexToHash("0xcf4791818fba6e019216eb4864093b4947f674afada5d305e57d598b641dad1d")
}

// UnpackInsufficientBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientBalance(uint256 owed, uint256 requested)
func (taskRegistry *TaskRegistry) UnpackInsufficientBalanceError(raw []byte) (*TaskRegistryInsufficientBalance, error) {
	out := new(TaskRegistryInsufficientBalance)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "InsufficientBalance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryInvalidShortString represents a InvalidShortString error raised by the TaskRegistry contract.
type TaskRegistryInvalidShortString struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidShortString()
func TaskRegistryInvalidShortStringErrorID() common.Hash {
	return common.HexToHash("0xb3512b0c6163e5f0bafab72bb631b9d58cd7a731b082f910338aa21c83d5c274")
}

// UnpackInvalidShortStringError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidShortString()
func (taskRegistry *TaskRegistry) UnpackInvalidShortStringError(raw []byte) (*TaskRegistryInvalidShortString, error) {
	out := new(TaskRegistryInvalidShortString)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "InvalidShortString", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryMalformedSignature represents a MalformedSignature error raised by the TaskRegistry contract.
type TaskRegistryMalformedSignature struct {
	Expected common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error MalformedSignature(address expected)
func TaskRegistryMalformedSignatureErrorID() common.Hash {
	return common.HexToHash("0x5d5c2f1361644c6a8e2d7f44c7e34d516204358b9c60bc77d249eb5715d8fa1f")
}

// UnpackMalformedSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error MalformedSignature(address expected)
func (taskRegistry *TaskRegistry) UnpackMalformedSignatureError(raw []byte) (*TaskRegistryMalformedSignature, error) {
	out := new(TaskRegistryMalformedSignature)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "MalformedSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryNoSuchMilestone represents a NoSuchMilestone error raised by the TaskRegistry contract.
type TaskRegistryNoSuchMilestone struct {
	Milestone *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NoSuchMilestone(uint256 milestone)
func TaskRegistryNoSuchMilestoneErrorID() common.Hash {
	return common.HexToHash("0x2d1aff1cbca88fa0b0cf6490c01a52d5efe34f173ec5a63377ba450919397ec9")
}

// UnpackNoSuchMilestoneError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NoSuchMilestone(uint256 milestone)
func (taskRegistry *TaskRegistry) UnpackNoSuchMilestoneError(raw []byte) (*TaskRegistryNoSuchMilestone, error) {
	out := new(TaskRegistryNoSuchMilestone)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "NoSuchMilestone", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryNotActive represents a NotActive error raised by the TaskRegistry contract.
type TaskRegistryNotActive struct {
	TaskId [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotActive(bytes32 taskId)
func TaskRegistryNotActiveErrorID() common.Hash {
	return common.HexToHash("0xdb39125e6c9e818f8d143b0551dd476267fb335183e96c6ede26c15cd61ddb76")
}

// UnpackNotActiveError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotActive(bytes32 taskId)
func (taskRegistry *TaskRegistry) UnpackNotActiveError(raw []byte) (*TaskRegistryNotActive, error) {
	out := new(TaskRegistryNotActive)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "NotActive", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryNotArbitration represents a NotArbitration error raised by the TaskRegistry contract.
type TaskRegistryNotArbitration struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotArbitration(address caller)
func TaskRegistryNotArbitrationErrorID() common.Hash {
	return common.HexToHash("0x36a1621dfd2a80ba9b3aaf690fac2e768527a8005169972f44962fc4e7caa857")
}

// UnpackNotArbitrationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotArbitration(address caller)
func (taskRegistry *TaskRegistry) UnpackNotArbitrationError(raw []byte) (*TaskRegistryNotArbitration, error) {
	out := new(TaskRegistryNotArbitration)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "NotArbitration", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryNotParty represents a NotParty error raised by the TaskRegistry contract.
type TaskRegistryNotParty struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotParty(address caller)
func TaskRegistryNotPartyErrorID() common.Hash {
	return common.HexToHash("0x20b9b3408989ca42d5fa2663f15008e4a0eb67196888f609b60bc67db38ad0ab")
}

// UnpackNotPartyError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotParty(address caller)
func (taskRegistry *TaskRegistry) UnpackNotPartyError(raw []byte) (*TaskRegistryNotParty, error) {
	out := new(TaskRegistryNotParty)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "NotParty", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryNotPoster represents a NotPoster error raised by the TaskRegistry contract.
type TaskRegistryNotPoster struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotPoster(address caller)
func TaskRegistryNotPosterErrorID() common.Hash {
	return common.HexToHash("0x6951ee52da6a0da6c56d349a0c3dd0d20b0fd20079112c9b347ea29455477275")
}

// UnpackNotPosterError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotPoster(address caller)
func (taskRegistry *TaskRegistry) UnpackNotPosterError(raw []byte) (*TaskRegistryNotPoster, error) {
	out := new(TaskRegistryNotPoster)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "NotPoster", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryNotWorker represents a NotWorker error raised by the TaskRegistry contract.
type TaskRegistryNotWorker struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotWorker(address caller)
func TaskRegistryNotWorkerErrorID() common.Hash {
	return common.HexToHash("0xd8d46badd5ae1366fcbc61ede8522c2dbec9e3172265696f75f416d59bfd2602")
}

// UnpackNotWorkerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotWorker(address caller)
func (taskRegistry *TaskRegistry) UnpackNotWorkerError(raw []byte) (*TaskRegistryNotWorker, error) {
	out := new(TaskRegistryNotWorker)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "NotWorker", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryNothingInEscrow represents a NothingInEscrow error raised by the TaskRegistry contract.
type TaskRegistryNothingInEscrow struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NothingInEscrow()
func TaskRegistryNothingInEscrowErrorID() common.Hash {
	return common.HexToHash("0xb7f74b5211809ca42296dce5a198318a92072fc5f7eaece98f57fd45c720e675")
}

// UnpackNothingInEscrowError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NothingInEscrow()
func (taskRegistry *TaskRegistry) UnpackNothingInEscrowError(raw []byte) (*TaskRegistryNothingInEscrow, error) {
	out := new(TaskRegistryNothingInEscrow)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "NothingInEscrow", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryNothingToRefund represents a NothingToRefund error raised by the TaskRegistry contract.
type TaskRegistryNothingToRefund struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NothingToRefund()
func TaskRegistryNothingToRefundErrorID() common.Hash {
	return common.HexToHash("0xf76aef6575d368b0583d30056e704aa1a685cdb52eee59e8e1373263677f4107")
}

// UnpackNothingToRefundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NothingToRefund()
func (taskRegistry *TaskRegistry) UnpackNothingToRefundError(raw []byte) (*TaskRegistryNothingToRefund, error) {
	out := new(TaskRegistryNothingToRefund)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "NothingToRefund", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryReentrancyGuardReentrantCall represents a ReentrancyGuardReentrantCall error raised by the TaskRegistry contract.
type TaskRegistryReentrancyGuardReentrantCall struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ReentrancyGuardReentrantCall()
func TaskRegistryReentrancyGuardReentrantCallErrorID() common.Hash {
	return common.HexToHash("0x3ee5aeb571de7fc460830b4d0017439a1ca56fb0bc39062227ade4fe4a24c1ca")
}

// UnpackReentrancyGuardReentrantCallError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ReentrancyGuardReentrantCall()
func (taskRegistry *TaskRegistry) UnpackReentrancyGuardReentrantCallError(raw []byte) (*TaskRegistryReentrancyGuardReentrantCall, error) {
	out := new(TaskRegistryReentrancyGuardReentrantCall)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "ReentrancyGuardReentrantCall", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryReviewPending represents a ReviewPending error raised by the TaskRegistry contract.
type TaskRegistryReviewPending struct {
	Until uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ReviewPending(uint64 until)
func TaskRegistryReviewPendingErrorID() common.Hash {
	return common.HexToHash("0xc6c359fd5c57815d011feb3137a429ad21a8aa9a1f4df4011de01a7cac98fe4a")
}

// UnpackReviewPendingError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ReviewPending(uint64 until)
func (taskRegistry *TaskRegistry) UnpackReviewPendingError(raw []byte) (*TaskRegistryReviewPending, error) {
	out := new(TaskRegistryReviewPending)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "ReviewPending", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryReviewPeriodOver represents a ReviewPeriodOver error raised by the TaskRegistry contract.
type TaskRegistryReviewPeriodOver struct {
	Until uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ReviewPeriodOver(uint64 until)
func TaskRegistryReviewPeriodOverErrorID() common.Hash {
	return common.HexToHash("0x10a7f45b40779cd1ea48f65e7a9f710c26497c5f14fe50168563ac6b1d569f88")
}

// UnpackReviewPeriodOverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ReviewPeriodOver(uint64 until)
func (taskRegistry *TaskRegistry) UnpackReviewPeriodOverError(raw []byte) (*TaskRegistryReviewPeriodOver, error) {
	out := new(TaskRegistryReviewPeriodOver)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "ReviewPeriodOver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistrySafeERC20FailedOperation represents a SafeERC20FailedOperation error raised by the TaskRegistry contract.
type TaskRegistrySafeERC20FailedOperation struct {
	Token common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SafeERC20FailedOperation(address token)
func TaskRegistrySafeERC20FailedOperationErrorID() common.Hash {
	return common.HexToHash("0x5274afe73c98b4749fc91ffae6b7b574e7842cb2144a159e9377a5f20b32edf9")
}

// UnpackSafeERC20FailedOperationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SafeERC20FailedOperation(address token)
func (taskRegistry *TaskRegistry) UnpackSafeERC20FailedOperationError(raw []byte) (*TaskRegistrySafeERC20FailedOperation, error) {
	out := new(TaskRegistrySafeERC20FailedOperation)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "SafeERC20FailedOperation", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryStaleNonce represents a StaleNonce error raised by the TaskRegistry contract.
type TaskRegistryStaleNonce struct {
	Expected *big.Int
	Got      *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StaleNonce(uint256 expected, uint256 got)
func TaskRegistryStaleNonceErrorID() common.Hash {
	return common.HexToHash("0xf54256bfb1bc868902a1ea572b65dbaa2aed61dae636b157b990eeb5f2db93f7")
}

// UnpackStaleNonceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StaleNonce(uint256 expected, uint256 got)
func (taskRegistry *TaskRegistry) UnpackStaleNonceError(raw []byte) (*TaskRegistryStaleNonce, error) {
	out := new(TaskRegistryStaleNonce)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "StaleNonce", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryStaleTask represents a StaleTask error raised by the TaskRegistry contract.
type TaskRegistryStaleTask struct {
	TaskId [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StaleTask(bytes32 taskId)
func TaskRegistryStaleTaskErrorID() common.Hash {
	return common.HexToHash("0xec3f1b01c57678103378b811174f4fa6d52d2258eddcf1220929e8fdd8dc8150")
}

// UnpackStaleTaskError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StaleTask(bytes32 taskId)
func (taskRegistry *TaskRegistry) UnpackStaleTaskError(raw []byte) (*TaskRegistryStaleTask, error) {
	out := new(TaskRegistryStaleTask)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "StaleTask", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryStringTooLong represents a StringTooLong error raised by the TaskRegistry contract.
type TaskRegistryStringTooLong struct {
	Str string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StringTooLong(string str)
func TaskRegistryStringTooLongErrorID() common.Hash {
	return common.HexToHash("0x305a27a93f8e33b7392df0a0f91d6fc63847395853c45991eec52dbf24d72381")
}

// UnpackStringTooLongError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StringTooLong(string str)
func (taskRegistry *TaskRegistry) UnpackStringTooLongError(raw []byte) (*TaskRegistryStringTooLong, error) {
	out := new(TaskRegistryStringTooLong)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "StringTooLong", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryTokenShortfall represents a TokenShortfall error raised by the TaskRegistry contract.
type TaskRegistryTokenShortfall struct {
	Received *big.Int
	Expected *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TokenShortfall(uint256 received, uint256 expected)
func TaskRegistryTokenShortfallErrorID() common.Hash {
	return common.HexToHash("0x4115a76c7951e1b776bcd10d63a850ab94756283e265dee800dfc6f2b6ee8d4f")
}

// UnpackTokenShortfallError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TokenShortfall(uint256 received, uint256 expected)
func (taskRegistry *TaskRegistry) UnpackTokenShortfallError(raw []byte) (*TaskRegistryTokenShortfall, error) {
	out := new(TaskRegistryTokenShortfall)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "TokenShortfall", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryTooManyRevisions represents a TooManyRevisions error raised by the TaskRegistry contract.
type TaskRegistryTooManyRevisions struct {
	Milestone *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TooManyRevisions(uint256 milestone)
func TaskRegistryTooManyRevisionsErrorID() common.Hash {
	return common.HexToHash("0x29d7d4100bff5bb7ecd22386641bb124f6fa23f5ea69c793363aaf46fb98948d")
}

// UnpackTooManyRevisionsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TooManyRevisions(uint256 milestone)
func (taskRegistry *TaskRegistry) UnpackTooManyRevisionsError(raw []byte) (*TaskRegistryTooManyRevisions, error) {
	out := new(TaskRegistryTooManyRevisions)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "TooManyRevisions", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryTransferFailed represents a TransferFailed error raised by the TaskRegistry contract.
type TaskRegistryTransferFailed struct {
	To common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TransferFailed(address to)
func TaskRegistryTransferFailedErrorID() common.Hash {
	return common.HexToHash("0x39f1c8d9a08940175dbc82f15840b953aa855264e371e68f3e5d5cb38c445fa0")
}

// UnpackTransferFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TransferFailed(address to)
func (taskRegistry *TaskRegistry) UnpackTransferFailedError(raw []byte) (*TaskRegistryTransferFailed, error) {
	out := new(TaskRegistryTransferFailed)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "TransferFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryUnknownTask represents a UnknownTask error raised by the TaskRegistry contract.
type TaskRegistryUnknownTask struct {
	TaskId [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UnknownTask(bytes32 taskId)
func TaskRegistryUnknownTaskErrorID() common.Hash {
	return common.HexToHash("0x2e3abafda73ae9d45cfed93d49801db23684d982676257f1d826a93d4310a5e7")
}

// UnpackUnknownTaskError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UnknownTask(bytes32 taskId)
func (taskRegistry *TaskRegistry) UnpackUnknownTaskError(raw []byte) (*TaskRegistryUnknownTask, error) {
	out := new(TaskRegistryUnknownTask)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "UnknownTask", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskRegistryWrongSigner represents a WrongSigner error raised by the TaskRegistry contract.
type TaskRegistryWrongSigner struct {
	Expected  common.Address
	Recovered common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WrongSigner(address expected, address recovered)
func TaskRegistryWrongSignerErrorID() common.Hash {
	return common.HexToHash("0x366d29f7de543b1e5962d6f7315450f1f5ec3d853d28dca80282b4c242185268")
}

// UnpackWrongSignerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WrongSigner(address expected, address recovered)
func (taskRegistry *TaskRegistry) UnpackWrongSignerError(raw []byte) (*TaskRegistryWrongSigner, error) {
	out := new(TaskRegistryWrongSigner)
	if err := taskRegistry.abi.UnpackIntoInterface(out, "WrongSigner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskScopeRegistryMetaData contains all meta data concerning the TaskScopeRegistry contract.
var TaskScopeRegistryMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"announcementHash\",\"type\":\"bytes32\"}],\"name\":\"AlreadyPublished\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"BadHash\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotPoster\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"announcementHash\",\"type\":\"bytes32\"}],\"name\":\"NotPublished\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"announcementHash\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"scopeHash\",\"type\":\"bytes32\"}],\"name\":\"ScopePublished\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"announcementHash\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"}],\"name\":\"ScopeWithdrawn\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"announcementHash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"scopeHash\",\"type\":\"bytes32\"}],\"name\":\"publish\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"announcementHash\",\"type\":\"bytes32\"}],\"name\":\"scopeOf\",\"outputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"poster\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"publishedAt\",\"type\":\"uint64\"},{\"internalType\":\"bool\",\"name\":\"withdrawn\",\"type\":\"bool\"},{\"internalType\":\"bytes32\",\"name\":\"scopeHash\",\"type\":\"bytes32\"}],\"internalType\":\"structTaskScopeRegistry.Scope\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"announcementHash\",\"type\":\"bytes32\"}],\"name\":\"withdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "62756b4611c7cb581497ad221c49512dcc",
	Bin: "0x608080604052346015576102e7908161001a8239f35b5f80fdfe60806040526004361015610011575f80fd5b5f3560e01c8063696c75c6146101885780638e19899e146100de5763bb4825461461003a575f80fd5b346100da5760203660031901126100da575f60606100566102a6565b82815282602082015282604082015201526004355f525f602052608060405f2061007e6102a6565b815467ffffffffffffffff60018060a01b03821693848452606060016020860192848660a01c16845260ff604088019660e01c161515865201549401938452604051948552511660208401525115156040830152516060820152f35b5f80fd5b346100da5760203660031901126100da576004355f81815260208190526040902080546001600160a01b0381168015801561017b575b6101685733036101555760ff60e01b1916600160e01b17905533907f4362a454dec11140e38736f83b0321da40ddc69a8c3f9033f75c7c61f3e073655f80a3005b6334a8f72960e11b5f523360045260245ffd5b83634a1c17ab60e11b5f5260045260245ffd5b5060ff8260e01c16610114565b346100da5760403660031901126100da576024356004358015801561029e575b61028f575f818152602081905260409020546001600160a01b031661027d576101cf6102a6565b338082524267ffffffffffffffff1660208084019182525f6040808601828152606087018981528884528385529282902096518754955191516001600160e81b03199096166001600160a01b03919091161760a09190911b67ffffffffffffffff60a01b161793151560e01b60ff60e01b16939093178555516001949094019390935551938452927f351a43635a7ee36653f1801b8c16a84ed3124e393009297275791139864a38c79190a3005b636857728b60e11b5f5260045260245ffd5b630e30b9cb60e41b5f5260045ffd5b5081156101a8565b604051906080820182811067ffffffffffffffff8211176102c657604052565b634e487b7160e01b5f52604160045260245ffdfea164736f6c6343000825000a",
}

// TaskScopeRegistry is an auto generated Go binding around an Ethereum contract.
type TaskScopeRegistry struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *TaskScopeRegistry) GetABI() abi.ABI {
	return c.abi
}

// NewTaskScopeRegistry creates a new instance of TaskScopeRegistry.
func NewTaskScopeRegistry() *TaskScopeRegistry {
	parsed, err := TaskScopeRegistryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &TaskScopeRegistry{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *TaskScopeRegistry) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackPublish is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x696c75c6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function publish(bytes32 announcementHash, bytes32 scopeHash) returns()
func (taskScopeRegistry *TaskScopeRegistry) PackPublish(announcementHash [32]byte, scopeHash [32]byte) []byte {
	enc, err := taskScopeRegistry.abi.Pack("publish", announcementHash, scopeHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPublish is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x696c75c6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function publish(bytes32 announcementHash, bytes32 scopeHash) returns()
func (taskScopeRegistry *TaskScopeRegistry) TryPackPublish(announcementHash [32]byte, scopeHash [32]byte) ([]byte, error) {
	return taskScopeRegistry.abi.Pack("publish", announcementHash, scopeHash)
}

// PackScopeOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbb482546.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function scopeOf(bytes32 announcementHash) view returns((address,uint64,bool,bytes32))
func (taskScopeRegistry *TaskScopeRegistry) PackScopeOf(announcementHash [32]byte) []byte {
	enc, err := taskScopeRegistry.abi.Pack("scopeOf", announcementHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackScopeOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbb482546.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function scopeOf(bytes32 announcementHash) view returns((address,uint64,bool,bytes32))
func (taskScopeRegistry *TaskScopeRegistry) TryPackScopeOf(announcementHash [32]byte) ([]byte, error) {
	return taskScopeRegistry.abi.Pack("scopeOf", announcementHash)
}

// UnpackScopeOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xbb482546.
//
// Solidity: function scopeOf(bytes32 announcementHash) view returns((address,uint64,bool,bytes32))
func (taskScopeRegistry *TaskScopeRegistry) UnpackScopeOf(data []byte) (TaskScopeRegistryScope, error) {
	out, err := taskScopeRegistry.abi.Unpack("scopeOf", data)
	if err != nil {
		return *new(TaskScopeRegistryScope), err
	}
	out0 := *abi.ConvertType(out[0], new(TaskScopeRegistryScope)).(*TaskScopeRegistryScope)
	return out0, nil
}

// PackWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8e19899e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function withdraw(bytes32 announcementHash) returns()
func (taskScopeRegistry *TaskScopeRegistry) PackWithdraw(announcementHash [32]byte) []byte {
	enc, err := taskScopeRegistry.abi.Pack("withdraw", announcementHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8e19899e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function withdraw(bytes32 announcementHash) returns()
func (taskScopeRegistry *TaskScopeRegistry) TryPackWithdraw(announcementHash [32]byte) ([]byte, error) {
	return taskScopeRegistry.abi.Pack("withdraw", announcementHash)
}

// TaskScopeRegistryScopePublished represents a ScopePublished event raised by the TaskScopeRegistry contract.
type TaskScopeRegistryScopePublished struct {
	AnnouncementHash [32]byte
	Poster           common.Address
	ScopeHash        [32]byte
	Raw              *types.Log // Blockchain specific contextual infos
}

const TaskScopeRegistryScopePublishedEventName = "ScopePublished"

// ContractEventName returns the user-defined event name.
func (TaskScopeRegistryScopePublished) ContractEventName() string {
	return TaskScopeRegistryScopePublishedEventName
}

// UnpackScopePublishedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ScopePublished(bytes32 indexed announcementHash, address indexed poster, bytes32 scopeHash)
func (taskScopeRegistry *TaskScopeRegistry) UnpackScopePublishedEvent(log *types.Log) (*TaskScopeRegistryScopePublished, error) {
	event := "ScopePublished"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskScopeRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskScopeRegistryScopePublished)
	if len(log.Data) > 0 {
		if err := taskScopeRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskScopeRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// TaskScopeRegistryScopeWithdrawn represents a ScopeWithdrawn event raised by the TaskScopeRegistry contract.
type TaskScopeRegistryScopeWithdrawn struct {
	AnnouncementHash [32]byte
	Poster           common.Address
	Raw              *types.Log // Blockchain specific contextual infos
}

const TaskScopeRegistryScopeWithdrawnEventName = "ScopeWithdrawn"

// ContractEventName returns the user-defined event name.
func (TaskScopeRegistryScopeWithdrawn) ContractEventName() string {
	return TaskScopeRegistryScopeWithdrawnEventName
}

// UnpackScopeWithdrawnEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ScopeWithdrawn(bytes32 indexed announcementHash, address indexed poster)
func (taskScopeRegistry *TaskScopeRegistry) UnpackScopeWithdrawnEvent(log *types.Log) (*TaskScopeRegistryScopeWithdrawn, error) {
	event := "ScopeWithdrawn"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != taskScopeRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TaskScopeRegistryScopeWithdrawn)
	if len(log.Data) > 0 {
		if err := taskScopeRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range taskScopeRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (taskScopeRegistry *TaskScopeRegistry) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], taskScopeRegistry.abi.Errors["AlreadyPublished"].ID.Bytes()[:4]) {
		return taskScopeRegistry.UnpackAlreadyPublishedError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskScopeRegistry.abi.Errors["BadHash"].ID.Bytes()[:4]) {
		return taskScopeRegistry.UnpackBadHashError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskScopeRegistry.abi.Errors["NotPoster"].ID.Bytes()[:4]) {
		return taskScopeRegistry.UnpackNotPosterError(raw[4:])
	}
	if bytes.Equal(raw[:4], taskScopeRegistry.abi.Errors["NotPublished"].ID.Bytes()[:4]) {
		return taskScopeRegistry.UnpackNotPublishedError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// TaskScopeRegistryAlreadyPublished represents a AlreadyPublished error raised by the TaskScopeRegistry contract.
type TaskScopeRegistryAlreadyPublished struct {
	AnnouncementHash [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AlreadyPublished(bytes32 announcementHash)
func TaskScopeRegistryAlreadyPublishedErrorID() common.Hash {
	return common.HexToHash("0xd0aee51620d79c28c115990acd3da4b0a78507f71e79228ca2a81d53f4759cbf")
}

// UnpackAlreadyPublishedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AlreadyPublished(bytes32 announcementHash)
func (taskScopeRegistry *TaskScopeRegistry) UnpackAlreadyPublishedError(raw []byte) (*TaskScopeRegistryAlreadyPublished, error) {
	out := new(TaskScopeRegistryAlreadyPublished)
	if err := taskScopeRegistry.abi.UnpackIntoInterface(out, "AlreadyPublished", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskScopeRegistryBadHash represents a BadHash error raised by the TaskScopeRegistry contract.
type TaskScopeRegistryBadHash struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadHash()
func TaskScopeRegistryBadHashErrorID() common.Hash {
	return common.HexToHash("0xe30b9cb06876889c1f6ab5fa4a53d44a642245773919ba2bfc3fc6efcc8107ea")
}

// UnpackBadHashError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadHash()
func (taskScopeRegistry *TaskScopeRegistry) UnpackBadHashError(raw []byte) (*TaskScopeRegistryBadHash, error) {
	out := new(TaskScopeRegistryBadHash)
	if err := taskScopeRegistry.abi.UnpackIntoInterface(out, "BadHash", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskScopeRegistryNotPoster represents a NotPoster error raised by the TaskScopeRegistry contract.
type TaskScopeRegistryNotPoster struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotPoster(address caller)
func TaskScopeRegistryNotPosterErrorID() common.Hash {
	return common.HexToHash("0x6951ee52da6a0da6c56d349a0c3dd0d20b0fd20079112c9b347ea29455477275")
}

// UnpackNotPosterError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotPoster(address caller)
func (taskScopeRegistry *TaskScopeRegistry) UnpackNotPosterError(raw []byte) (*TaskScopeRegistryNotPoster, error) {
	out := new(TaskScopeRegistryNotPoster)
	if err := taskScopeRegistry.abi.UnpackIntoInterface(out, "NotPoster", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskScopeRegistryNotPublished represents a NotPublished error raised by the TaskScopeRegistry contract.
type TaskScopeRegistryNotPublished struct {
	AnnouncementHash [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotPublished(bytes32 announcementHash)
func TaskScopeRegistryNotPublishedErrorID() common.Hash {
	return common.HexToHash("0x94382f56053a431adeebfa25fd0a4af2b8ba63a0bb346d23aa6e77df8a2955ca")
}

// UnpackNotPublishedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotPublished(bytes32 announcementHash)
func (taskScopeRegistry *TaskScopeRegistry) UnpackNotPublishedError(raw []byte) (*TaskScopeRegistryNotPublished, error) {
	out := new(TaskScopeRegistryNotPublished)
	if err := taskScopeRegistry.abi.UnpackIntoInterface(out, "NotPublished", raw); err != nil {
		return nil, err
	}
	return out, nil
}
