// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package testbindings

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

// ReentrantReceiverMetaData contains all meta data concerning the ReentrantReceiver contract.
var ReentrantReceiverMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"target_\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"arm\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"exec\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"payload\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"reentries\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"reentrySuccesses\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"target\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	ID:  "b9eb45cfbb80d90cb11665d829101c4e13",
	Bin: "0x60a08060405234602f57336080526106bf9081610034823960805181818160a70152818161026e015261043e0152f35b5f80fdfe60806040526004361015610022575b3615610018575f80fd5b6100206105c1565b005b5f3560e01c80633522bfd0146100915780636578986d1461008c5780638da5cb5b146100875780638f58c0d414610082578063a878f8581461007d578063be6002c2146100785763d4b839920361000e576104a6565b61042c565b610352565b61029d565b610259565b61023c565b346101d45761009f366101d8565b90916100d5337f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316146104cd565b60018060a01b03166bffffffffffffffffffffffff60a01b5f5416175f5567ffffffffffffffff81116101cf57610116816101116001546102ba565b610501565b5f601f8211600114610153578190610143935f92610148575b50508160011b915f199060031b1c19161790565b600155005b01359050838061012f565b60015f52601f198216927fb10e2d527612073b26eecdfd717e6a320cf44b4afac2b0732d9fcbe2b7fa0cf6915f5b8581106101b75750836001951061019e575b505050811b01600155005b01355f19600384901b60f8161c19169055828080610193565b90926020600181928686013581550194019101610181565b6102f2565b5f80fd5b60406003198201126101d4576004356001600160a01b03811681036101d4579160243567ffffffffffffffff81116101d457826023820112156101d45780600401359267ffffffffffffffff84116101d457602484830101116101d4576024019190565b346101d4575f3660031901126101d4576020600254604051908152f35b346101d4575f3660031901126101d4576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b346101d4575f3660031901126101d4576020600354604051908152f35b90600182811c921680156102e8575b60208310146102d457565b634e487b7160e01b5f52602260045260245ffd5b91607f16916102c9565b634e487b7160e01b5f52604160045260245ffd5b90601f8019910116810190811067ffffffffffffffff8211176101cf57604052565b602060409281835280519182918282860152018484015e5f828201840152601f01601f1916010190565b346101d4575f3660031901126101d4576040515f600154610372816102ba565b808452906001811690811561040857506001146103aa575b6103a68361039a81850382610306565b60405191829182610328565b0390f35b91905060015f527fb10e2d527612073b26eecdfd717e6a320cf44b4afac2b0732d9fcbe2b7fa0cf6915f905b8082106103ee5750909150810160200161039a61038a565b9192600181602092548385880101520191019092916103d6565b60ff191660208086019190915291151560051b8401909101915061039a905061038a565b5f80610437366101d8565b9061046c337f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316146104cd565b8160405192839283378101848152039134905af1610488610560565b901561049e576103a69060405191829182610328565b602081519101fd5b346101d4575f3660031901126101d4575f546040516001600160a01b039091168152602090f35b156104d457565b60405162461bcd60e51b815260206004820152600560248201526437bbb732b960d91b6044820152606490fd5b90601f821161050e575050565b808211610519575050565b60015f5260205f206020601f830160051c9210610558575b81601f9101920160051c03905f5b82811061054b57505050565b5f8282015560010161053f565b5f9150610531565b3d1561059a573d9067ffffffffffffffff82116101cf576040519161058f601f8201601f191660200184610306565b82523d5f602084013e565b606090565b5f1981146105ad5760010190565b634e487b7160e01b5f52601160045260245ffd5b5f546001600160a01b0316801580156106a5575b6106a2576105e460025461059f565b6002556040515f6001546105f7816102ba565b906001811690811561068d575060011461063d575b5091815f809493819403925af1610621610560565b5061062857565b61063b61063660035461059f565b600355565b565b60015f9081529091507fb10e2d527612073b26eecdfd717e6a320cf44b4afac2b0732d9fcbe2b7fa0cf65b82821061067957505081018161060c565b600181602092548487015201910190610668565b60ff191684525080151502820190508161060c565b50565b50600360025410156105d556fea164736f6c6343000825000a",
}

// ReentrantReceiver is an auto generated Go binding around an Ethereum contract.
type ReentrantReceiver struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *ReentrantReceiver) GetABI() abi.ABI {
	return c.abi
}

// NewReentrantReceiver creates a new instance of ReentrantReceiver.
func NewReentrantReceiver() *ReentrantReceiver {
	parsed, err := ReentrantReceiverMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &ReentrantReceiver{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *ReentrantReceiver) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackArm is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3522bfd0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function arm(address target_, bytes data) returns()
func (reentrantReceiver *ReentrantReceiver) PackArm(target common.Address, data []byte) []byte {
	enc, err := reentrantReceiver.abi.Pack("arm", target, data)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackArm is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3522bfd0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function arm(address target_, bytes data) returns()
func (reentrantReceiver *ReentrantReceiver) TryPackArm(target common.Address, data []byte) ([]byte, error) {
	return reentrantReceiver.abi.Pack("arm", target, data)
}

// PackExec is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbe6002c2.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function exec(address to, bytes data) payable returns(bytes)
func (reentrantReceiver *ReentrantReceiver) PackExec(to common.Address, data []byte) []byte {
	enc, err := reentrantReceiver.abi.Pack("exec", to, data)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExec is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbe6002c2.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function exec(address to, bytes data) payable returns(bytes)
func (reentrantReceiver *ReentrantReceiver) TryPackExec(to common.Address, data []byte) ([]byte, error) {
	return reentrantReceiver.abi.Pack("exec", to, data)
}

// UnpackExec is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xbe6002c2.
//
// Solidity: function exec(address to, bytes data) payable returns(bytes)
func (reentrantReceiver *ReentrantReceiver) UnpackExec(data []byte) ([]byte, error) {
	out, err := reentrantReceiver.abi.Unpack("exec", data)
	if err != nil {
		return *new([]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (reentrantReceiver *ReentrantReceiver) PackOwner() []byte {
	enc, err := reentrantReceiver.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (reentrantReceiver *ReentrantReceiver) TryPackOwner() ([]byte, error) {
	return reentrantReceiver.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (reentrantReceiver *ReentrantReceiver) UnpackOwner(data []byte) (common.Address, error) {
	out, err := reentrantReceiver.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackPayload is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa878f858.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function payload() view returns(bytes)
func (reentrantReceiver *ReentrantReceiver) PackPayload() []byte {
	enc, err := reentrantReceiver.abi.Pack("payload")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPayload is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa878f858.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function payload() view returns(bytes)
func (reentrantReceiver *ReentrantReceiver) TryPackPayload() ([]byte, error) {
	return reentrantReceiver.abi.Pack("payload")
}

// UnpackPayload is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa878f858.
//
// Solidity: function payload() view returns(bytes)
func (reentrantReceiver *ReentrantReceiver) UnpackPayload(data []byte) ([]byte, error) {
	out, err := reentrantReceiver.abi.Unpack("payload", data)
	if err != nil {
		return *new([]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)
	return out0, nil
}

// PackReentries is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6578986d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function reentries() view returns(uint256)
func (reentrantReceiver *ReentrantReceiver) PackReentries() []byte {
	enc, err := reentrantReceiver.abi.Pack("reentries")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReentries is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6578986d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function reentries() view returns(uint256)
func (reentrantReceiver *ReentrantReceiver) TryPackReentries() ([]byte, error) {
	return reentrantReceiver.abi.Pack("reentries")
}

// UnpackReentries is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6578986d.
//
// Solidity: function reentries() view returns(uint256)
func (reentrantReceiver *ReentrantReceiver) UnpackReentries(data []byte) (*big.Int, error) {
	out, err := reentrantReceiver.abi.Unpack("reentries", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackReentrySuccesses is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8f58c0d4.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function reentrySuccesses() view returns(uint256)
func (reentrantReceiver *ReentrantReceiver) PackReentrySuccesses() []byte {
	enc, err := reentrantReceiver.abi.Pack("reentrySuccesses")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReentrySuccesses is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8f58c0d4.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function reentrySuccesses() view returns(uint256)
func (reentrantReceiver *ReentrantReceiver) TryPackReentrySuccesses() ([]byte, error) {
	return reentrantReceiver.abi.Pack("reentrySuccesses")
}

// UnpackReentrySuccesses is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8f58c0d4.
//
// Solidity: function reentrySuccesses() view returns(uint256)
func (reentrantReceiver *ReentrantReceiver) UnpackReentrySuccesses(data []byte) (*big.Int, error) {
	out, err := reentrantReceiver.abi.Unpack("reentrySuccesses", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTarget is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd4b83992.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function target() view returns(address)
func (reentrantReceiver *ReentrantReceiver) PackTarget() []byte {
	enc, err := reentrantReceiver.abi.Pack("target")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTarget is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd4b83992.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function target() view returns(address)
func (reentrantReceiver *ReentrantReceiver) TryPackTarget() ([]byte, error) {
	return reentrantReceiver.abi.Pack("target")
}

// UnpackTarget is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd4b83992.
//
// Solidity: function target() view returns(address)
func (reentrantReceiver *ReentrantReceiver) UnpackTarget(data []byte) (common.Address, error) {
	out, err := reentrantReceiver.abi.Unpack("target", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// ReentrantTokenMetaData contains all meta data concerning the ReentrantToken contract.
var ReentrantTokenMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSpender\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"target_\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"arm\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"attempted\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"payload\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"reentered\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"reentryResult\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"target\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "a50e1696b8e0a9e4033b4db20b83e58b1d",
	Bin: "0x60806040523461032e57604080519081016001600160401b03811182821017610236576040908152600f82526e2932b2b73a3930b73a102a37b5b2b760891b602083015280519081016001600160401b0381118282101761023657604052600381526214939560ea1b602082015281516001600160401b03811161023657600354600181811c91168015610324575b602082101461021857601f81116102b6575b50602092601f821160011461025557928192935f9261024a575b50508160011b915f199060031b1c1916176003555b80516001600160401b03811161023657600454600181811c9116801561022c575b602082101461021857601f81116101aa575b50602091601f821160011461014a579181925f9261013f575b50508160011b915f199060031b1c1916176004555b604051610e7490816103338239f35b015190505f8061011b565b601f1982169260045f52805f20915f5b8581106101925750836001951061017a575b505050811b01600455610130565b01515f1960f88460031b161c191690555f808061016c565b9192602060018192868501518155019401920161015a565b818111156101025760045f52601f820160051c7f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b60208410610210575b81601f9101920160051c03905f5b828110610203575050610102565b5f828201556001016101f5565b5f91506101e7565b634e487b7160e01b5f52602260045260245ffd5b90607f16906100f0565b634e487b7160e01b5f52604160045260245ffd5b015190505f806100ba565b601f1982169360035f52805f20915f5b86811061029e5750836001959610610286575b505050811b016003556100cf565b01515f1960f88460031b161c191690555f8080610278565b91926020600181928685015181550194019201610265565b818111156100a05760035f52601f820160051c7fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b6020841061031c575b81601f9101920160051c03905f5b82811061030f5750506100a0565b5f82820155600101610301565b5f91506102f3565b90607f169061008e565b5f80fdfe6080806040526004361015610012575f80fd5b5f3560e01c90816306fdde03146109f957508063095ea7b31461097757806318160ddd1461095a57806323b872dd1461087b578063313ce567146108605780633522bfd0146106bf5780633f09775e1461069a57806340c10f19146103eb57806370a08231146103b4578063917f51b41461039257806395d89b41146102ed578063a878f8581461025b578063a9059cbb1461022a578063d4b8399214610202578063dbe5c304146101205763dd62ed3e146100cc575f80fd5b3461011c57604036600319011261011c576100e5610abf565b6100ed610ad5565b6001600160a01b039182165f908152600160209081526040808320949093168252928352819020549051908152f35b5f80fd5b3461011c575f36600319011261011c576040515f60085461014081610aeb565b80845290600181169081156101de5750600114610180575b61017c8361016881850382610b23565b604051918291602083526020830190610a9b565b0390f35b60085f9081527ff3f7a9fe364faab93b216da50a3214154f22a0a2b415b23a84c8169e8b636ee3939250905b8082106101c457509091508101602001610168610158565b9192600181602092548385880101520191019092916101ac565b60ff191660208086019190915291151560051b840190910191506101689050610158565b3461011c575f36600319011261011c576005546040516001600160a01b039091168152602090f35b3461011c57604036600319011261011c57610250610246610abf565b6024359033610ba4565b602060405160018152f35b3461011c575f36600319011261011c576040515f60065461027b81610aeb565b80845290600181169081156101de57506001146102a25761017c8361016881850382610b23565b60065f9081525f516020610e485f395f51905f52939250905b8082106102d357509091508101602001610168610158565b9192600181602092548385880101520191019092916102bb565b3461011c575f36600319011261011c576040515f60045461030d81610aeb565b80845290600181169081156101de57506001146103345761017c8361016881850382610b23565b91905060045f527f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b915f905b80821061037857509091508101602001610168610158565b919260018160209254838588010152019101909291610360565b3461011c575f36600319011261011c57602060ff600754166040519015158152f35b3461011c57602036600319011261011c576001600160a01b036103d5610abf565b165f525f602052602060405f2054604051908152f35b3461011c57604036600319011261011c57610404610abf565b6001600160a01b0316602435811561068757600254908082018092116106735760207fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef915f9360025584845283825260408420818154019055604051908152a36005546001600160a01b031680151580610666575b8061065f575b61048557005b600160ff196007541617600755604051905f6006546104a381610aeb565b906001811690811561064a575060011461060e575b5090825f8094819403925af13d15610606573d9067ffffffffffffffff82116105f257604051916104f3601f8201601f191660200184610b23565b82523d5f602084013e5b61ff0060075491151560081b169061ff00191617600755805167ffffffffffffffff81116105f25761053981610534600854610aeb565b610b45565b602091601f821160011461057757610567925f918361056c575b50508160011b915f199060031b1c19161790565b600855005b015190508380610553565b601f1982169260085f527ff3f7a9fe364faab93b216da50a3214154f22a0a2b415b23a84c8169e8b636ee3915f5b8581106105da575083600195106105c2575b505050811b01600855005b01515f1960f88460031b161c191690558280806105b7565b919260206001819286850151815501940192016105a5565b634e487b7160e01b5f52604160045260245ffd5b6060906104fd565b905060065f525f516020610e485f395f51905f525f905b8282106106365750508201826104b8565b600181602092548488015201910190610625565b60ff19168552508015150283019050826104b8565b505f61047f565b5060ff6007541615610479565b634e487b7160e01b5f52601160045260245ffd5b63ec442f0560e01b5f525f60045260245ffd5b3461011c575f36600319011261011c57602060ff60075460081c166040519015158152f35b3461011c57604036600319011261011c576106d8610abf565b6024359067ffffffffffffffff821161011c573660238301121561011c5781600401359067ffffffffffffffff821161011c57366024838501011161011c5760018060a01b03166bffffffffffffffffffffffff60a01b6005541617600555610742600654610aeb565b601f8111610805575b505f601f8211600114610797578190610778935f926107895750508160011b915f199060031b1c19161790565b6006555b6007805461ffff19169055005b602492500101358380610553565b601f198216925f516020610e485f395f51905f52915f5b8581106107ea575083600195106107ce575b505050811b0160065561077c565b01602401355f19600384901b60f8161c191690558280806107c0565b909260206001819260248787010135815501940191016107ae565b8181111561074b5760065f52601f820160051c5f516020610e485f395f51905f5260208410610858575b81601f9101920160051c03905f5b82811061084b57505061074b565b5f8282015560010161083d565b5f915061082f565b3461011c575f36600319011261011c57602060405160128152f35b3461011c57606036600319011261011c57610894610abf565b61089c610ad5565b6001600160a01b0382165f818152600160209081526040808320338452909152902054909260443592915f1981106108da575b506102509350610ba4565b83811061093f57841561092c57331561091957610250945f52600160205260405f2060018060a01b0333165f526020528360405f2091039055846108cf565b634a1406b160e11b5f525f60045260245ffd5b63e602df0560e01b5f525f60045260245ffd5b8390637dc7a0d960e11b5f523360045260245260445260645ffd5b3461011c575f36600319011261011c576020600254604051908152f35b3461011c57604036600319011261011c57610990610abf565b60243590331561092c576001600160a01b031690811561091957335f52600160205260405f20825f526020528060405f20556040519081527f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92560203392a3602060405160018152f35b3461011c575f36600319011261011c575f600354610a1681610aeb565b80845290600181169081156101de5750600114610a3d5761017c8361016881850382610b23565b91905060035f527fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b915f905b808210610a8157509091508101602001610168610158565b919260018160209254838588010152019101909291610a69565b805180835260209291819084018484015e5f828201840152601f01601f1916010190565b600435906001600160a01b038216820361011c57565b602435906001600160a01b038216820361011c57565b90600182811c92168015610b19575b6020831014610b0557565b634e487b7160e01b5f52602260045260245ffd5b91607f1691610afa565b90601f8019910116810190811067ffffffffffffffff8211176105f257604052565b90601f8211610b52575050565b808211610b5d575050565b60085f5260205f206020601f830160051c9210610b9c575b81601f9101920160051c03905f5b828110610b8f57505050565b5f82820155600101610b83565b5f9150610b75565b6001600160a01b0316908115610e34576001600160a01b031691821561068757815f525f60205260405f2054818110610e1b57817fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef92602092855f525f84520360405f2055845f525f825260405f20818154019055604051908152a36005546001600160a01b031680151580610e0e575b80610e06575b610c425750565b600160ff1960075416176007556040515f600654610c5f81610aeb565b9060018116908115610df15750600114610db5575b5091815f809493819403925af1903d15610dad573d9167ffffffffffffffff83116105f25760405192610cb1601f8201601f191660200185610b23565b83523d5f602085013e5b61ff0060075491151560081b169061ff00191617600755815167ffffffffffffffff81116105f257610cf281610534600854610aeb565b602092601f8211600114610d3157610d21929382915f92610d265750508160011b915f199060031b1c19161790565b600855565b015190505f80610553565b601f1982169360085f527ff3f7a9fe364faab93b216da50a3214154f22a0a2b415b23a84c8169e8b636ee3915f5b868110610d955750836001959610610d7d575b505050811b01600855565b01515f1960f88460031b161c191690555f8080610d72565b91926020600181928685015181550194019201610d5f565b606091610cbb565b905060065f525f516020610e485f395f51905f525f905b828210610ddd575050810181610c74565b600181602092548487015201910190610dcc565b60ff1916845250801515028201905081610c74565b506001610c3b565b5060ff6007541615610c35565b8263391434e360e21b5f5260045260245260445260645ffd5b634b637e8f60e11b5f525f60045260245ffdfef652222313e28459528d920b65115c16c04f3efc82aaedc97be59f3f377c0d3fa164736f6c6343000825000a",
}

// ReentrantToken is an auto generated Go binding around an Ethereum contract.
type ReentrantToken struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *ReentrantToken) GetABI() abi.ABI {
	return c.abi
}

// NewReentrantToken creates a new instance of ReentrantToken.
func NewReentrantToken() *ReentrantToken {
	parsed, err := ReentrantTokenMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &ReentrantToken{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *ReentrantToken) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (reentrantToken *ReentrantToken) PackAllowance(owner common.Address, spender common.Address) []byte {
	enc, err := reentrantToken.abi.Pack("allowance", owner, spender)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (reentrantToken *ReentrantToken) TryPackAllowance(owner common.Address, spender common.Address) ([]byte, error) {
	return reentrantToken.abi.Pack("allowance", owner, spender)
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (reentrantToken *ReentrantToken) UnpackAllowance(data []byte) (*big.Int, error) {
	out, err := reentrantToken.abi.Unpack("allowance", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (reentrantToken *ReentrantToken) PackApprove(spender common.Address, value *big.Int) []byte {
	enc, err := reentrantToken.abi.Pack("approve", spender, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (reentrantToken *ReentrantToken) TryPackApprove(spender common.Address, value *big.Int) ([]byte, error) {
	return reentrantToken.abi.Pack("approve", spender, value)
}

// UnpackApprove is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (reentrantToken *ReentrantToken) UnpackApprove(data []byte) (bool, error) {
	out, err := reentrantToken.abi.Unpack("approve", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackArm is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3522bfd0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function arm(address target_, bytes data) returns()
func (reentrantToken *ReentrantToken) PackArm(target common.Address, data []byte) []byte {
	enc, err := reentrantToken.abi.Pack("arm", target, data)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackArm is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3522bfd0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function arm(address target_, bytes data) returns()
func (reentrantToken *ReentrantToken) TryPackArm(target common.Address, data []byte) ([]byte, error) {
	return reentrantToken.abi.Pack("arm", target, data)
}

// PackAttempted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x917f51b4.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function attempted() view returns(bool)
func (reentrantToken *ReentrantToken) PackAttempted() []byte {
	enc, err := reentrantToken.abi.Pack("attempted")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAttempted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x917f51b4.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function attempted() view returns(bool)
func (reentrantToken *ReentrantToken) TryPackAttempted() ([]byte, error) {
	return reentrantToken.abi.Pack("attempted")
}

// UnpackAttempted is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x917f51b4.
//
// Solidity: function attempted() view returns(bool)
func (reentrantToken *ReentrantToken) UnpackAttempted(data []byte) (bool, error) {
	out, err := reentrantToken.abi.Unpack("attempted", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (reentrantToken *ReentrantToken) PackBalanceOf(account common.Address) []byte {
	enc, err := reentrantToken.abi.Pack("balanceOf", account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (reentrantToken *ReentrantToken) TryPackBalanceOf(account common.Address) ([]byte, error) {
	return reentrantToken.abi.Pack("balanceOf", account)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (reentrantToken *ReentrantToken) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := reentrantToken.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (reentrantToken *ReentrantToken) PackDecimals() []byte {
	enc, err := reentrantToken.abi.Pack("decimals")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decimals() view returns(uint8)
func (reentrantToken *ReentrantToken) TryPackDecimals() ([]byte, error) {
	return reentrantToken.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (reentrantToken *ReentrantToken) UnpackDecimals(data []byte) (uint8, error) {
	out, err := reentrantToken.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (reentrantToken *ReentrantToken) PackMint(to common.Address, amount *big.Int) []byte {
	enc, err := reentrantToken.abi.Pack("mint", to, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (reentrantToken *ReentrantToken) TryPackMint(to common.Address, amount *big.Int) ([]byte, error) {
	return reentrantToken.abi.Pack("mint", to, amount)
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (reentrantToken *ReentrantToken) PackName() []byte {
	enc, err := reentrantToken.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() view returns(string)
func (reentrantToken *ReentrantToken) TryPackName() ([]byte, error) {
	return reentrantToken.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (reentrantToken *ReentrantToken) UnpackName(data []byte) (string, error) {
	out, err := reentrantToken.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackPayload is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa878f858.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function payload() view returns(bytes)
func (reentrantToken *ReentrantToken) PackPayload() []byte {
	enc, err := reentrantToken.abi.Pack("payload")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPayload is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa878f858.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function payload() view returns(bytes)
func (reentrantToken *ReentrantToken) TryPackPayload() ([]byte, error) {
	return reentrantToken.abi.Pack("payload")
}

// UnpackPayload is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa878f858.
//
// Solidity: function payload() view returns(bytes)
func (reentrantToken *ReentrantToken) UnpackPayload(data []byte) ([]byte, error) {
	out, err := reentrantToken.abi.Unpack("payload", data)
	if err != nil {
		return *new([]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)
	return out0, nil
}

// PackReentered is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f09775e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function reentered() view returns(bool)
func (reentrantToken *ReentrantToken) PackReentered() []byte {
	enc, err := reentrantToken.abi.Pack("reentered")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReentered is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f09775e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function reentered() view returns(bool)
func (reentrantToken *ReentrantToken) TryPackReentered() ([]byte, error) {
	return reentrantToken.abi.Pack("reentered")
}

// UnpackReentered is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3f09775e.
//
// Solidity: function reentered() view returns(bool)
func (reentrantToken *ReentrantToken) UnpackReentered(data []byte) (bool, error) {
	out, err := reentrantToken.abi.Unpack("reentered", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackReentryResult is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdbe5c304.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function reentryResult() view returns(bytes)
func (reentrantToken *ReentrantToken) PackReentryResult() []byte {
	enc, err := reentrantToken.abi.Pack("reentryResult")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReentryResult is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdbe5c304.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function reentryResult() view returns(bytes)
func (reentrantToken *ReentrantToken) TryPackReentryResult() ([]byte, error) {
	return reentrantToken.abi.Pack("reentryResult")
}

// UnpackReentryResult is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdbe5c304.
//
// Solidity: function reentryResult() view returns(bytes)
func (reentrantToken *ReentrantToken) UnpackReentryResult(data []byte) ([]byte, error) {
	out, err := reentrantToken.abi.Unpack("reentryResult", data)
	if err != nil {
		return *new([]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)
	return out0, nil
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (reentrantToken *ReentrantToken) PackSymbol() []byte {
	enc, err := reentrantToken.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() view returns(string)
func (reentrantToken *ReentrantToken) TryPackSymbol() ([]byte, error) {
	return reentrantToken.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (reentrantToken *ReentrantToken) UnpackSymbol(data []byte) (string, error) {
	out, err := reentrantToken.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTarget is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd4b83992.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function target() view returns(address)
func (reentrantToken *ReentrantToken) PackTarget() []byte {
	enc, err := reentrantToken.abi.Pack("target")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTarget is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd4b83992.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function target() view returns(address)
func (reentrantToken *ReentrantToken) TryPackTarget() ([]byte, error) {
	return reentrantToken.abi.Pack("target")
}

// UnpackTarget is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd4b83992.
//
// Solidity: function target() view returns(address)
func (reentrantToken *ReentrantToken) UnpackTarget(data []byte) (common.Address, error) {
	out, err := reentrantToken.abi.Unpack("target", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function totalSupply() view returns(uint256)
func (reentrantToken *ReentrantToken) PackTotalSupply() []byte {
	enc, err := reentrantToken.abi.Pack("totalSupply")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function totalSupply() view returns(uint256)
func (reentrantToken *ReentrantToken) TryPackTotalSupply() ([]byte, error) {
	return reentrantToken.abi.Pack("totalSupply")
}

// UnpackTotalSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (reentrantToken *ReentrantToken) UnpackTotalSupply(data []byte) (*big.Int, error) {
	out, err := reentrantToken.abi.Unpack("totalSupply", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (reentrantToken *ReentrantToken) PackTransfer(to common.Address, value *big.Int) []byte {
	enc, err := reentrantToken.abi.Pack("transfer", to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (reentrantToken *ReentrantToken) TryPackTransfer(to common.Address, value *big.Int) ([]byte, error) {
	return reentrantToken.abi.Pack("transfer", to, value)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (reentrantToken *ReentrantToken) UnpackTransfer(data []byte) (bool, error) {
	out, err := reentrantToken.abi.Unpack("transfer", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (reentrantToken *ReentrantToken) PackTransferFrom(from common.Address, to common.Address, value *big.Int) []byte {
	enc, err := reentrantToken.abi.Pack("transferFrom", from, to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (reentrantToken *ReentrantToken) TryPackTransferFrom(from common.Address, to common.Address, value *big.Int) ([]byte, error) {
	return reentrantToken.abi.Pack("transferFrom", from, to, value)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (reentrantToken *ReentrantToken) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := reentrantToken.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// ReentrantTokenApproval represents a Approval event raised by the ReentrantToken contract.
type ReentrantTokenApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const ReentrantTokenApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (ReentrantTokenApproval) ContractEventName() string {
	return ReentrantTokenApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (reentrantToken *ReentrantToken) UnpackApprovalEvent(log *types.Log) (*ReentrantTokenApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != reentrantToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ReentrantTokenApproval)
	if len(log.Data) > 0 {
		if err := reentrantToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range reentrantToken.abi.Events[event].Inputs {
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

// ReentrantTokenTransfer represents a Transfer event raised by the ReentrantToken contract.
type ReentrantTokenTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const ReentrantTokenTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (ReentrantTokenTransfer) ContractEventName() string {
	return ReentrantTokenTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (reentrantToken *ReentrantToken) UnpackTransferEvent(log *types.Log) (*ReentrantTokenTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != reentrantToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ReentrantTokenTransfer)
	if len(log.Data) > 0 {
		if err := reentrantToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range reentrantToken.abi.Events[event].Inputs {
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
func (reentrantToken *ReentrantToken) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], reentrantToken.abi.Errors["ERC20InsufficientAllowance"].ID.Bytes()[:4]) {
		return reentrantToken.UnpackERC20InsufficientAllowanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], reentrantToken.abi.Errors["ERC20InsufficientBalance"].ID.Bytes()[:4]) {
		return reentrantToken.UnpackERC20InsufficientBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], reentrantToken.abi.Errors["ERC20InvalidApprover"].ID.Bytes()[:4]) {
		return reentrantToken.UnpackERC20InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], reentrantToken.abi.Errors["ERC20InvalidReceiver"].ID.Bytes()[:4]) {
		return reentrantToken.UnpackERC20InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], reentrantToken.abi.Errors["ERC20InvalidSender"].ID.Bytes()[:4]) {
		return reentrantToken.UnpackERC20InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], reentrantToken.abi.Errors["ERC20InvalidSpender"].ID.Bytes()[:4]) {
		return reentrantToken.UnpackERC20InvalidSpenderError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// ReentrantTokenERC20InsufficientAllowance represents a ERC20InsufficientAllowance error raised by the ReentrantToken contract.
type ReentrantTokenERC20InsufficientAllowance struct {
	Spender   common.Address
	Allowance *big.Int
	Needed    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func ReentrantTokenERC20InsufficientAllowanceErrorID() common.Hash {
	return common.HexToHash("0xfb8f41b23e99d2101d86da76cdfa87dd51c82ed07d3cb62cbc473e469dbc75c3")
}

// UnpackERC20InsufficientAllowanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func (reentrantToken *ReentrantToken) UnpackERC20InsufficientAllowanceError(raw []byte) (*ReentrantTokenERC20InsufficientAllowance, error) {
	out := new(ReentrantTokenERC20InsufficientAllowance)
	if err := reentrantToken.abi.UnpackIntoInterface(out, "ERC20InsufficientAllowance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ReentrantTokenERC20InsufficientBalance represents a ERC20InsufficientBalance error raised by the ReentrantToken contract.
type ReentrantTokenERC20InsufficientBalance struct {
	Sender  common.Address
	Balance *big.Int
	Needed  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func ReentrantTokenERC20InsufficientBalanceErrorID() common.Hash {
	return common.HexToHash("0xe450d38cd8d9f7d95077d567d60ed49c7254716e6ad08fc9872816c97e0ffec6")
}

// UnpackERC20InsufficientBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func (reentrantToken *ReentrantToken) UnpackERC20InsufficientBalanceError(raw []byte) (*ReentrantTokenERC20InsufficientBalance, error) {
	out := new(ReentrantTokenERC20InsufficientBalance)
	if err := reentrantToken.abi.UnpackIntoInterface(out, "ERC20InsufficientBalance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ReentrantTokenERC20InvalidApprover represents a ERC20InvalidApprover error raised by the ReentrantToken contract.
type ReentrantTokenERC20InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidApprover(address approver)
func ReentrantTokenERC20InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xe602df05cc75712490294c6c104ab7c17f4030363910a7a2626411c6d3118847")
}

// UnpackERC20InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidApprover(address approver)
func (reentrantToken *ReentrantToken) UnpackERC20InvalidApproverError(raw []byte) (*ReentrantTokenERC20InvalidApprover, error) {
	out := new(ReentrantTokenERC20InvalidApprover)
	if err := reentrantToken.abi.UnpackIntoInterface(out, "ERC20InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ReentrantTokenERC20InvalidReceiver represents a ERC20InvalidReceiver error raised by the ReentrantToken contract.
type ReentrantTokenERC20InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func ReentrantTokenERC20InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0xec442f055133b72f3b2f9f0bb351c406b178527de2040a7d1feb4e058771f613")
}

// UnpackERC20InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func (reentrantToken *ReentrantToken) UnpackERC20InvalidReceiverError(raw []byte) (*ReentrantTokenERC20InvalidReceiver, error) {
	out := new(ReentrantTokenERC20InvalidReceiver)
	if err := reentrantToken.abi.UnpackIntoInterface(out, "ERC20InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ReentrantTokenERC20InvalidSender represents a ERC20InvalidSender error raised by the ReentrantToken contract.
type ReentrantTokenERC20InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSender(address sender)
func ReentrantTokenERC20InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x96c6fd1edd0cd6ef7ff0ecc0facdf53148dc0048b57fe58af65755250a7a96bd")
}

// UnpackERC20InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSender(address sender)
func (reentrantToken *ReentrantToken) UnpackERC20InvalidSenderError(raw []byte) (*ReentrantTokenERC20InvalidSender, error) {
	out := new(ReentrantTokenERC20InvalidSender)
	if err := reentrantToken.abi.UnpackIntoInterface(out, "ERC20InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ReentrantTokenERC20InvalidSpender represents a ERC20InvalidSpender error raised by the ReentrantToken contract.
type ReentrantTokenERC20InvalidSpender struct {
	Spender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSpender(address spender)
func ReentrantTokenERC20InvalidSpenderErrorID() common.Hash {
	return common.HexToHash("0x94280d62c347d8d9f4d59a76ea321452406db88df38e0c9da304f58b57b373a2")
}

// UnpackERC20InvalidSpenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSpender(address spender)
func (reentrantToken *ReentrantToken) UnpackERC20InvalidSpenderError(raw []byte) (*ReentrantTokenERC20InvalidSpender, error) {
	out := new(ReentrantTokenERC20InvalidSpender)
	if err := reentrantToken.abi.UnpackIntoInterface(out, "ERC20InvalidSpender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TestCourtMetaData contains all meta data concerning the TestCourt contract.
var TestCourtMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"fee_\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"_disputeID\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"_arbitrable\",\"type\":\"address\"}],\"name\":\"DisputeCreation\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"arbitrable\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"arbitrationCost\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"createDispute\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"disputeID\",\"type\":\"uint256\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"fee\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"disputeID\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"ruling\",\"type\":\"uint256\"}],\"name\":\"giveRuling\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"registry\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"withdrawFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	ID:  "5783aee4b918a0eb5acfcfa2e5774874d1",
	Bin: "0x60c03461008257601f61061638819003918201601f19168301916001600160401b038311848410176100865780849260209460405283398101031261008257513360805260a05260405161057b908161009b823960805181818161016f01528181610340015261047d015260a05181818160f10152818161013001526102450152f35b5f80fd5b634e487b7160e01b5f52604160045260245ffdfe608080604052600436101561001c575b50361561001a575f80fd5b005b5f905f3560e01c9081638da5cb5b1461046b575080639470b0bd14610316578063c13517e114610214578063c97c4d5c14610153578063ddca3f4314610118578063f7434ea9146100b65763fd49ef020361000f57346100b35760203660031901126100b3576004359080548210156100b357602061009a836104da565b905460405160039290921b1c6001600160a01b03168152f35b80fd5b50346100b35760203660031901126100b35760043567ffffffffffffffff8111610114576100e89036906004016104ac565b505060206040517f00000000000000000000000000000000000000000000000000000000000000008152f35b5080fd5b50346100b357806003193601126100b35760206040517f00000000000000000000000000000000000000000000000000000000000000008152f35b50346100b35760403660031901126100b3578060043561019d337f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031614610504565b6101a6816104da565b905460039190911b1c6001600160a01b031690813b1561021057829160448392604051948593849263188d362b60e11b8452600484015260243560248401525af18015610205576101f45750f35b816101fe91610538565b6100b35780f35b6040513d84823e3d90fd5b5050fd5b5060403660031901126100b35760243567ffffffffffffffff8111610114576102419036906004016104ac565b50507f000000000000000000000000000000000000000000000000000000000000000034036102eb57805490680100000000000000008210156102d757816001602093018255610290816104da565b81549060031b9033821b9160018060a01b03901b191617905560405191817f141dfc18aa6a56fc816f44f0e9e2f1ebc92b15ab167770e17db5b084c10ed995339280a38152f35b634e487b7160e01b81526041600452602490fd5b60405162461bcd60e51b815260206004820152600360248201526266656560e81b6044820152606490fd5b5034610467576040366003190112610467576004356001600160a01b0381169190829003610467577f000000000000000000000000000000000000000000000000000000000000000091602435610377336001600160a01b03861614610504565b8061040c575b5050808080809447905af13d15610407573d67ffffffffffffffff81116103f357604051906103b6601f8201601f191660200183610538565b81528260203d92013e5b156103c85780f35b60405162461bcd60e51b815260206004820152600360248201526270617960e81b6044820152606490fd5b634e487b7160e01b83526041600452602483fd5b6103c0565b813b15610467575f9160448392604051948593849263f3fef3a360e01b845282600485015260248401525af1801561045c57610449575b8061037d565b61045591505f90610538565b5f5f610443565b6040513d5f823e3d90fd5b5f80fd5b34610467575f366003190112610467577f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b9181601f840112156104675782359167ffffffffffffffff8311610467576020838186019501011161046757565b5f548110156104f0575f805260205f2001905f90565b634e487b7160e01b5f52603260045260245ffd5b1561050b57565b60405162461bcd60e51b815260206004820152600560248201526437bbb732b960d91b6044820152606490fd5b90601f8019910116810190811067ffffffffffffffff82111761055a57604052565b634e487b7160e01b5f52604160045260245ffdfea164736f6c6343000825000a",
}

// TestCourt is an auto generated Go binding around an Ethereum contract.
type TestCourt struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *TestCourt) GetABI() abi.ABI {
	return c.abi
}

// NewTestCourt creates a new instance of TestCourt.
func NewTestCourt() *TestCourt {
	parsed, err := TestCourtMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &TestCourt{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *TestCourt) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(uint256 fee_) returns()
func (testCourt *TestCourt) PackConstructor(fee_ *big.Int) []byte {
	enc, err := testCourt.abi.Pack("", fee_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackArbitrable is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfd49ef02.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function arbitrable(uint256 ) view returns(address)
func (testCourt *TestCourt) PackArbitrable(arg0 *big.Int) []byte {
	enc, err := testCourt.abi.Pack("arbitrable", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackArbitrable is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfd49ef02.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function arbitrable(uint256 ) view returns(address)
func (testCourt *TestCourt) TryPackArbitrable(arg0 *big.Int) ([]byte, error) {
	return testCourt.abi.Pack("arbitrable", arg0)
}

// UnpackArbitrable is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfd49ef02.
//
// Solidity: function arbitrable(uint256 ) view returns(address)
func (testCourt *TestCourt) UnpackArbitrable(data []byte) (common.Address, error) {
	out, err := testCourt.abi.Unpack("arbitrable", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackArbitrationCost is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf7434ea9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function arbitrationCost(bytes ) view returns(uint256)
func (testCourt *TestCourt) PackArbitrationCost(arg0 []byte) []byte {
	enc, err := testCourt.abi.Pack("arbitrationCost", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackArbitrationCost is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf7434ea9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function arbitrationCost(bytes ) view returns(uint256)
func (testCourt *TestCourt) TryPackArbitrationCost(arg0 []byte) ([]byte, error) {
	return testCourt.abi.Pack("arbitrationCost", arg0)
}

// UnpackArbitrationCost is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf7434ea9.
//
// Solidity: function arbitrationCost(bytes ) view returns(uint256)
func (testCourt *TestCourt) UnpackArbitrationCost(data []byte) (*big.Int, error) {
	out, err := testCourt.abi.Unpack("arbitrationCost", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackCreateDispute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc13517e1.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function createDispute(uint256 , bytes ) payable returns(uint256 disputeID)
func (testCourt *TestCourt) PackCreateDispute(arg0 *big.Int, arg1 []byte) []byte {
	enc, err := testCourt.abi.Pack("createDispute", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCreateDispute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc13517e1.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function createDispute(uint256 , bytes ) payable returns(uint256 disputeID)
func (testCourt *TestCourt) TryPackCreateDispute(arg0 *big.Int, arg1 []byte) ([]byte, error) {
	return testCourt.abi.Pack("createDispute", arg0, arg1)
}

// UnpackCreateDispute is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc13517e1.
//
// Solidity: function createDispute(uint256 , bytes ) payable returns(uint256 disputeID)
func (testCourt *TestCourt) UnpackCreateDispute(data []byte) (*big.Int, error) {
	out, err := testCourt.abi.Unpack("createDispute", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackFee is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xddca3f43.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function fee() view returns(uint256)
func (testCourt *TestCourt) PackFee() []byte {
	enc, err := testCourt.abi.Pack("fee")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFee is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xddca3f43.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function fee() view returns(uint256)
func (testCourt *TestCourt) TryPackFee() ([]byte, error) {
	return testCourt.abi.Pack("fee")
}

// UnpackFee is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xddca3f43.
//
// Solidity: function fee() view returns(uint256)
func (testCourt *TestCourt) UnpackFee(data []byte) (*big.Int, error) {
	out, err := testCourt.abi.Unpack("fee", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGiveRuling is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc97c4d5c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function giveRuling(uint256 disputeID, uint256 ruling) returns()
func (testCourt *TestCourt) PackGiveRuling(disputeID *big.Int, ruling *big.Int) []byte {
	enc, err := testCourt.abi.Pack("giveRuling", disputeID, ruling)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGiveRuling is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc97c4d5c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function giveRuling(uint256 disputeID, uint256 ruling) returns()
func (testCourt *TestCourt) TryPackGiveRuling(disputeID *big.Int, ruling *big.Int) ([]byte, error) {
	return testCourt.abi.Pack("giveRuling", disputeID, ruling)
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (testCourt *TestCourt) PackOwner() []byte {
	enc, err := testCourt.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (testCourt *TestCourt) TryPackOwner() ([]byte, error) {
	return testCourt.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (testCourt *TestCourt) UnpackOwner(data []byte) (common.Address, error) {
	out, err := testCourt.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackWithdrawFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9470b0bd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function withdrawFrom(address registry, uint256 amount) returns()
func (testCourt *TestCourt) PackWithdrawFrom(registry common.Address, amount *big.Int) []byte {
	enc, err := testCourt.abi.Pack("withdrawFrom", registry, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWithdrawFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9470b0bd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function withdrawFrom(address registry, uint256 amount) returns()
func (testCourt *TestCourt) TryPackWithdrawFrom(registry common.Address, amount *big.Int) ([]byte, error) {
	return testCourt.abi.Pack("withdrawFrom", registry, amount)
}

// TestCourtDisputeCreation represents a DisputeCreation event raised by the TestCourt contract.
type TestCourtDisputeCreation struct {
	DisputeID  *big.Int
	Arbitrable common.Address
	Raw        *types.Log // Blockchain specific contextual infos
}

const TestCourtDisputeCreationEventName = "DisputeCreation"

// ContractEventName returns the user-defined event name.
func (TestCourtDisputeCreation) ContractEventName() string {
	return TestCourtDisputeCreationEventName
}

// UnpackDisputeCreationEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DisputeCreation(uint256 indexed _disputeID, address indexed _arbitrable)
func (testCourt *TestCourt) UnpackDisputeCreationEvent(log *types.Log) (*TestCourtDisputeCreation, error) {
	event := "DisputeCreation"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != testCourt.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TestCourtDisputeCreation)
	if len(log.Data) > 0 {
		if err := testCourt.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range testCourt.abi.Events[event].Inputs {
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

// TestTokenMetaData contains all meta data concerning the TestToken contract.
var TestTokenMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSpender\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "93f8844f1927ee7bcbc18ea661ec6dda19",
	Bin: "0x60806040523461033057604080519081016001600160401b0381118282101761023857604090815260118252702830b93632bc902a32b9ba102a37b5b2b760791b602083015280519081016001600160401b0381118282101761023857604052600381526214151560ea1b602082015281516001600160401b03811161023857600354600181811c91168015610326575b602082101461021a57601f81116102b8575b50602092601f821160011461025757928192935f9261024c575b50508160011b915f199060031b1c1916176003555b80516001600160401b03811161023857600454600181811c9116801561022e575b602082101461021a57601f81116101ac575b50602091601f821160011461014c579181925f92610141575b50508160011b915f199060031b1c1916176004555b60405161067890816103358239f35b015190505f8061011d565b601f1982169260045f52805f20915f5b8581106101945750836001951061017c575b505050811b01600455610132565b01515f1960f88460031b161c191690555f808061016e565b9192602060018192868501518155019401920161015c565b818111156101045760045f52601f820160051c7f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b60208410610212575b81601f9101920160051c03905f5b828110610205575050610104565b5f828201556001016101f7565b5f91506101e9565b634e487b7160e01b5f52602260045260245ffd5b90607f16906100f2565b634e487b7160e01b5f52604160045260245ffd5b015190505f806100bc565b601f1982169360035f52805f20915f5b8681106102a05750836001959610610288575b505050811b016003556100d1565b01515f1960f88460031b161c191690555f808061027a565b91926020600181928685015181550194019201610267565b818111156100a25760035f52601f820160051c7fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b6020841061031e575b81601f9101920160051c03905f5b8281106103115750506100a2565b5f82820155600101610303565b5f91506102f5565b90607f1690610090565b5f80fdfe6080806040526004361015610012575f80fd5b5f3560e01c90816306fdde031461049c57508063095ea7b31461041a57806318160ddd146103fd57806323b872dd1461031e578063313ce5671461030357806340c10f191461026157806370a082311461022a57806395d89b411461010f578063a9059cbb146100de5763dd62ed3e1461008a575f80fd5b346100da5760403660031901126100da576100a3610595565b6100ab6105ab565b6001600160a01b039182165f908152600160209081526040808320949093168252928352819020549051908152f35b5f80fd5b346100da5760403660031901126100da576101046100fa610595565b60243590336105c1565b602060405160018152f35b346100da575f3660031901126100da576040515f6004548060011c90600181168015610220575b60208310811461020c578285529081156101f0575060011461019b575b50819003601f01601f191681019067ffffffffffffffff821181831017610187576101838291826040528261056b565b0390f35b634e487b7160e01b5f52604160045260245ffd5b905060045f527f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b5f905b8282106101da57506020915082010182610153565b60018160209254838588010152019101906101c5565b90506020925060ff191682840152151560051b82010182610153565b634e487b7160e01b5f52602260045260245ffd5b91607f1691610136565b346100da5760203660031901126100da576001600160a01b0361024b610595565b165f525f602052602060405f2054604051908152f35b346100da5760403660031901126100da5761027a610595565b6001600160a01b031660243581156102f057600254908082018092116102dc5760207fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef915f9360025584845283825260408420818154019055604051908152a3005b634e487b7160e01b5f52601160045260245ffd5b63ec442f0560e01b5f525f60045260245ffd5b346100da575f3660031901126100da57602060405160128152f35b346100da5760603660031901126100da57610337610595565b61033f6105ab565b6001600160a01b0382165f818152600160209081526040808320338452909152902054909260443592915f19811061037d575b5061010493506105c1565b8381106103e25784156103cf5733156103bc57610104945f52600160205260405f2060018060a01b0333165f526020528360405f209103905584610372565b634a1406b160e11b5f525f60045260245ffd5b63e602df0560e01b5f525f60045260245ffd5b8390637dc7a0d960e11b5f523360045260245260445260645ffd5b346100da575f3660031901126100da576020600254604051908152f35b346100da5760403660031901126100da57610433610595565b6024359033156103cf576001600160a01b03169081156103bc57335f52600160205260405f20825f526020528060405f20556040519081527f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92560203392a3602060405160018152f35b346100da575f3660031901126100da575f6003548060011c90600181168015610561575b60208310811461020c578285529081156101f0575060011461050c5750819003601f01601f191681019067ffffffffffffffff821181831017610187576101838291826040528261056b565b905060035f527fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b5f905b82821061054b57506020915082010182610153565b6001816020925483858801015201910190610536565b91607f16916104c0565b602060409281835280519182918282860152018484015e5f828201840152601f01601f1916010190565b600435906001600160a01b03821682036100da57565b602435906001600160a01b03821682036100da57565b6001600160a01b0316908115610658576001600160a01b03169182156102f057815f525f60205260405f205481811061063f57817fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef92602092855f525f84520360405f2055845f525f825260405f20818154019055604051908152a3565b8263391434e360e21b5f5260045260245260445260645ffd5b634b637e8f60e11b5f525f60045260245ffdfea164736f6c6343000825000a",
}

// TestToken is an auto generated Go binding around an Ethereum contract.
type TestToken struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *TestToken) GetABI() abi.ABI {
	return c.abi
}

// NewTestToken creates a new instance of TestToken.
func NewTestToken() *TestToken {
	parsed, err := TestTokenMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &TestToken{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *TestToken) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (testToken *TestToken) PackAllowance(owner common.Address, spender common.Address) []byte {
	enc, err := testToken.abi.Pack("allowance", owner, spender)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (testToken *TestToken) TryPackAllowance(owner common.Address, spender common.Address) ([]byte, error) {
	return testToken.abi.Pack("allowance", owner, spender)
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (testToken *TestToken) UnpackAllowance(data []byte) (*big.Int, error) {
	out, err := testToken.abi.Unpack("allowance", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (testToken *TestToken) PackApprove(spender common.Address, value *big.Int) []byte {
	enc, err := testToken.abi.Pack("approve", spender, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (testToken *TestToken) TryPackApprove(spender common.Address, value *big.Int) ([]byte, error) {
	return testToken.abi.Pack("approve", spender, value)
}

// UnpackApprove is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (testToken *TestToken) UnpackApprove(data []byte) (bool, error) {
	out, err := testToken.abi.Unpack("approve", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (testToken *TestToken) PackBalanceOf(account common.Address) []byte {
	enc, err := testToken.abi.Pack("balanceOf", account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (testToken *TestToken) TryPackBalanceOf(account common.Address) ([]byte, error) {
	return testToken.abi.Pack("balanceOf", account)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (testToken *TestToken) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := testToken.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (testToken *TestToken) PackDecimals() []byte {
	enc, err := testToken.abi.Pack("decimals")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decimals() view returns(uint8)
func (testToken *TestToken) TryPackDecimals() ([]byte, error) {
	return testToken.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (testToken *TestToken) UnpackDecimals(data []byte) (uint8, error) {
	out, err := testToken.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (testToken *TestToken) PackMint(to common.Address, amount *big.Int) []byte {
	enc, err := testToken.abi.Pack("mint", to, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (testToken *TestToken) TryPackMint(to common.Address, amount *big.Int) ([]byte, error) {
	return testToken.abi.Pack("mint", to, amount)
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (testToken *TestToken) PackName() []byte {
	enc, err := testToken.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() view returns(string)
func (testToken *TestToken) TryPackName() ([]byte, error) {
	return testToken.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (testToken *TestToken) UnpackName(data []byte) (string, error) {
	out, err := testToken.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (testToken *TestToken) PackSymbol() []byte {
	enc, err := testToken.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() view returns(string)
func (testToken *TestToken) TryPackSymbol() ([]byte, error) {
	return testToken.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (testToken *TestToken) UnpackSymbol(data []byte) (string, error) {
	out, err := testToken.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function totalSupply() view returns(uint256)
func (testToken *TestToken) PackTotalSupply() []byte {
	enc, err := testToken.abi.Pack("totalSupply")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function totalSupply() view returns(uint256)
func (testToken *TestToken) TryPackTotalSupply() ([]byte, error) {
	return testToken.abi.Pack("totalSupply")
}

// UnpackTotalSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (testToken *TestToken) UnpackTotalSupply(data []byte) (*big.Int, error) {
	out, err := testToken.abi.Unpack("totalSupply", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (testToken *TestToken) PackTransfer(to common.Address, value *big.Int) []byte {
	enc, err := testToken.abi.Pack("transfer", to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (testToken *TestToken) TryPackTransfer(to common.Address, value *big.Int) ([]byte, error) {
	return testToken.abi.Pack("transfer", to, value)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (testToken *TestToken) UnpackTransfer(data []byte) (bool, error) {
	out, err := testToken.abi.Unpack("transfer", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (testToken *TestToken) PackTransferFrom(from common.Address, to common.Address, value *big.Int) []byte {
	enc, err := testToken.abi.Pack("transferFrom", from, to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (testToken *TestToken) TryPackTransferFrom(from common.Address, to common.Address, value *big.Int) ([]byte, error) {
	return testToken.abi.Pack("transferFrom", from, to, value)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (testToken *TestToken) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := testToken.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// TestTokenApproval represents a Approval event raised by the TestToken contract.
type TestTokenApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const TestTokenApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (TestTokenApproval) ContractEventName() string {
	return TestTokenApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (testToken *TestToken) UnpackApprovalEvent(log *types.Log) (*TestTokenApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != testToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TestTokenApproval)
	if len(log.Data) > 0 {
		if err := testToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range testToken.abi.Events[event].Inputs {
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

// TestTokenTransfer represents a Transfer event raised by the TestToken contract.
type TestTokenTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const TestTokenTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (TestTokenTransfer) ContractEventName() string {
	return TestTokenTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (testToken *TestToken) UnpackTransferEvent(log *types.Log) (*TestTokenTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != testToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(TestTokenTransfer)
	if len(log.Data) > 0 {
		if err := testToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range testToken.abi.Events[event].Inputs {
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
func (testToken *TestToken) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], testToken.abi.Errors["ERC20InsufficientAllowance"].ID.Bytes()[:4]) {
		return testToken.UnpackERC20InsufficientAllowanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], testToken.abi.Errors["ERC20InsufficientBalance"].ID.Bytes()[:4]) {
		return testToken.UnpackERC20InsufficientBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], testToken.abi.Errors["ERC20InvalidApprover"].ID.Bytes()[:4]) {
		return testToken.UnpackERC20InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], testToken.abi.Errors["ERC20InvalidReceiver"].ID.Bytes()[:4]) {
		return testToken.UnpackERC20InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], testToken.abi.Errors["ERC20InvalidSender"].ID.Bytes()[:4]) {
		return testToken.UnpackERC20InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], testToken.abi.Errors["ERC20InvalidSpender"].ID.Bytes()[:4]) {
		return testToken.UnpackERC20InvalidSpenderError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// TestTokenERC20InsufficientAllowance represents a ERC20InsufficientAllowance error raised by the TestToken contract.
type TestTokenERC20InsufficientAllowance struct {
	Spender   common.Address
	Allowance *big.Int
	Needed    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func TestTokenERC20InsufficientAllowanceErrorID() common.Hash {
	return common.HexToHash("0xfb8f41b23e99d2101d86da76cdfa87dd51c82ed07d3cb62cbc473e469dbc75c3")
}

// UnpackERC20InsufficientAllowanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func (testToken *TestToken) UnpackERC20InsufficientAllowanceError(raw []byte) (*TestTokenERC20InsufficientAllowance, error) {
	out := new(TestTokenERC20InsufficientAllowance)
	if err := testToken.abi.UnpackIntoInterface(out, "ERC20InsufficientAllowance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TestTokenERC20InsufficientBalance represents a ERC20InsufficientBalance error raised by the TestToken contract.
type TestTokenERC20InsufficientBalance struct {
	Sender  common.Address
	Balance *big.Int
	Needed  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func TestTokenERC20InsufficientBalanceErrorID() common.Hash {
	return common.HexToHash("0xe450d38cd8d9f7d95077d567d60ed49c7254716e6ad08fc9872816c97e0ffec6")
}

// UnpackERC20InsufficientBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func (testToken *TestToken) UnpackERC20InsufficientBalanceError(raw []byte) (*TestTokenERC20InsufficientBalance, error) {
	out := new(TestTokenERC20InsufficientBalance)
	if err := testToken.abi.UnpackIntoInterface(out, "ERC20InsufficientBalance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TestTokenERC20InvalidApprover represents a ERC20InvalidApprover error raised by the TestToken contract.
type TestTokenERC20InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidApprover(address approver)
func TestTokenERC20InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xe602df05cc75712490294c6c104ab7c17f4030363910a7a2626411c6d3118847")
}

// UnpackERC20InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidApprover(address approver)
func (testToken *TestToken) UnpackERC20InvalidApproverError(raw []byte) (*TestTokenERC20InvalidApprover, error) {
	out := new(TestTokenERC20InvalidApprover)
	if err := testToken.abi.UnpackIntoInterface(out, "ERC20InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TestTokenERC20InvalidReceiver represents a ERC20InvalidReceiver error raised by the TestToken contract.
type TestTokenERC20InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func TestTokenERC20InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0xec442f055133b72f3b2f9f0bb351c406b178527de2040a7d1feb4e058771f613")
}

// UnpackERC20InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func (testToken *TestToken) UnpackERC20InvalidReceiverError(raw []byte) (*TestTokenERC20InvalidReceiver, error) {
	out := new(TestTokenERC20InvalidReceiver)
	if err := testToken.abi.UnpackIntoInterface(out, "ERC20InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TestTokenERC20InvalidSender represents a ERC20InvalidSender error raised by the TestToken contract.
type TestTokenERC20InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSender(address sender)
func TestTokenERC20InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x96c6fd1edd0cd6ef7ff0ecc0facdf53148dc0048b57fe58af65755250a7a96bd")
}

// UnpackERC20InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSender(address sender)
func (testToken *TestToken) UnpackERC20InvalidSenderError(raw []byte) (*TestTokenERC20InvalidSender, error) {
	out := new(TestTokenERC20InvalidSender)
	if err := testToken.abi.UnpackIntoInterface(out, "ERC20InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// TestTokenERC20InvalidSpender represents a ERC20InvalidSpender error raised by the TestToken contract.
type TestTokenERC20InvalidSpender struct {
	Spender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSpender(address spender)
func TestTokenERC20InvalidSpenderErrorID() common.Hash {
	return common.HexToHash("0x94280d62c347d8d9f4d59a76ea321452406db88df38e0c9da304f58b57b373a2")
}

// UnpackERC20InvalidSpenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSpender(address spender)
func (testToken *TestToken) UnpackERC20InvalidSpenderError(raw []byte) (*TestTokenERC20InvalidSpender, error) {
	out := new(TestTokenERC20InvalidSpender)
	if err := testToken.abi.UnpackIntoInterface(out, "ERC20InvalidSpender", raw); err != nil {
		return nil, err
	}
	return out, nil
}
