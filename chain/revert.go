package chain

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/parleynet/parley/contracts/bindings"
)

// erc20ErrorsABI declares the standard ERC-20 errors (ERC-6093) a token may
// bubble up through SafeERC20.
const erc20ErrorsABI = `[
{"type":"error","name":"ERC20InsufficientBalance","inputs":[{"name":"sender","type":"address"},{"name":"balance","type":"uint256"},{"name":"needed","type":"uint256"}]},
{"type":"error","name":"ERC20InvalidSender","inputs":[{"name":"sender","type":"address"}]},
{"type":"error","name":"ERC20InvalidReceiver","inputs":[{"name":"receiver","type":"address"}]},
{"type":"error","name":"ERC20InsufficientAllowance","inputs":[{"name":"spender","type":"address"},{"name":"allowance","type":"uint256"},{"name":"needed","type":"uint256"}]},
{"type":"error","name":"ERC20InvalidApprover","inputs":[{"name":"approver","type":"address"}]},
{"type":"error","name":"ERC20InvalidSpender","inputs":[{"name":"spender","type":"address"}]}
]`

// errorDecoder maps 4-byte selectors to the custom errors of Parley's
// contracts.
type errorDecoder struct {
	byID map[[4]byte]namedError
}

type namedError struct {
	contract string
	err      abi.Error
}

var (
	selError = [4]byte{0x08, 0xc3, 0x79, 0xa0} // Error(string)
	selPanic = [4]byte{0x4e, 0x48, 0x7b, 0x71} // Panic(uint256)
)

func newErrorDecoder() (*errorDecoder, error) {
	d := &errorDecoder{byID: make(map[[4]byte]namedError)}
	add := func(contract string, parsed *abi.ABI) {
		for _, e := range parsed.Errors {
			var id [4]byte
			copy(id[:], e.ID[:4])
			if _, dup := d.byID[id]; !dup {
				d.byID[id] = namedError{contract: contract, err: e}
			}
		}
	}
	for _, c := range []struct {
		name string
		abi  func() (*abi.ABI, error)
	}{
		{"TaskRegistry", bindings.TaskRegistryMetaData.ParseABI},
		{"ArbitrationModule", bindings.ArbitrationModuleMetaData.ParseABI},
		{"IdentityLink", bindings.IdentityLinkMetaData.ParseABI},
		{"TaskScopeRegistry", bindings.TaskScopeRegistryMetaData.ParseABI},
		{"LedgerAnchor", bindings.LedgerAnchorMetaData.ParseABI},
	} {
		parsed, err := c.abi()
		if err != nil {
			return nil, fmt.Errorf("chain: parse %s abi: %w", c.name, err)
		}
		add(c.name, parsed)
	}
	parsed, err := abi.JSON(strings.NewReader(erc20ErrorsABI))
	if err != nil {
		return nil, fmt.Errorf("chain: parse erc20 errors: %w", err)
	}
	add("ERC20", &parsed)
	return d, nil
}

// decode turns revert data into a *RevertError.
func (d *errorDecoder) decode(data []byte) *RevertError {
	re := &RevertError{Data: data}
	if len(data) < 4 {
		return re
	}
	var id [4]byte
	copy(id[:], data[:4])
	switch id {
	case selError:
		if s, err := abi.UnpackRevert(data); err == nil {
			re.Name, re.Reason = "Error", s
		}
		return re
	case selPanic:
		if len(data) == 36 {
			re.Name, re.Reason = "Panic", fmt.Sprintf("0x%x", new(big.Int).SetBytes(data[4:]))
		}
		return re
	}
	ne, ok := d.byID[id]
	if !ok {
		return re
	}
	args, err := ne.err.Inputs.Unpack(data[4:])
	if err != nil {
		return re
	}
	re.Contract, re.Name, re.Args = ne.contract, ne.err.Name, args
	return re
}

// revertData extracts the revert data a node attached to a JSON-RPC error.
func revertData(err error) ([]byte, bool) {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return nil, false
	}
	s, ok := de.ErrorData().(string)
	if !ok {
		return nil, false
	}
	b, derr := hexutil.Decode(s)
	if derr != nil {
		return nil, false
	}
	return b, true
}

// callError converts an eth_call or eth_estimateGas error into a
// *RevertError when the node reports a revert, and wraps it otherwise.
func (d *errorDecoder) callError(op string, err error) error {
	if data, ok := revertData(err); ok {
		return d.decode(data)
	}
	if strings.Contains(err.Error(), "execution reverted") {
		return &RevertError{}
	}
	return fmt.Errorf("chain: %s: %w", op, err)
}
