package node

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/gate"
)

// TokenView is the ERC-20 token a task's amounts are in, as the token
// describes itself: its symbol, name and decimals where it has them (they
// are optional in ERC-20; without decimals amounts are in the token's
// smallest unit). A task in ETH has none.
type TokenView struct {
	Address negotiation.Address `json:"address"`
	Symbol  string              `json:"symbol,omitempty"`
	Name    string              `json:"name,omitempty"`
	// Decimals is nil when the token does not say (or was not read yet).
	Decimals *uint8 `json:"decimals,omitempty"`
}

// Format writes amount x of the token: "1.5 PTT (1500000000000000000
// units of 18 decimals)"; in its smallest units when it has no decimals.
func (v TokenView) Format(x *big.Int) string {
	if x == nil {
		x = new(big.Int)
	}
	sym := v.Symbol
	if sym == "" {
		sym = "of token " + v.Address.String()
	}
	if v.Decimals == nil {
		return fmt.Sprintf("%s units %s", x, sym)
	}
	return fmt.Sprintf("%s %s (%s units of %d decimals)", FormatUnits(x, *v.Decimals), sym, x, *v.Decimals)
}

// FormatUnits writes x smallest units of a token with decimals as a
// decimal number, trailing zeros dropped: 1500000 with 6 decimals is "1.5".
func FormatUnits(x *big.Int, decimals uint8) string { return gate.FormatUnits(x, int(decimals)) }

// tokenBook keeps the metadata of the tokens this node's tasks name, read
// from the chain once per token (a view takes them from here and does no
// I/O). The zero value is ready to use.
type tokenBook struct {
	mu    sync.Mutex
	known map[negotiation.Address]TokenView
}

// cached returns what the book holds of token.
func (b *tokenBook) cached(token negotiation.Address) (TokenView, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.known[token]
	return v, ok
}

// lookup returns token's metadata, reading it from the chain the first
// time (client nil: the address alone, not kept).
func (b *tokenBook) lookup(ctx context.Context, client *chain.Client, token negotiation.Address) (TokenView, error) {
	if v, ok := b.cached(token); ok {
		return v, nil
	}
	v := TokenView{Address: token}
	if client == nil {
		return v, nil
	}
	info, err := client.Token(ctx, common.Address(token))
	if err != nil {
		return v, err
	}
	v.Symbol, v.Name = info.Symbol, info.Name
	if info.HasDecimals {
		d := info.Decimals
		v.Decimals = &d
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.known == nil {
		b.known = map[negotiation.Address]TokenView{}
	}
	b.known[token] = v
	return v, nil
}

// tokenArgs adds token's metadata to the arguments of a gated act, so the
// principal reads the amounts in the token's own terms: tokenSymbol,
// tokenName and tokenDecimals, each where the token has it.
func tokenArgs(v TokenView, args map[string]any) {
	if v.Symbol != "" {
		args["tokenSymbol"] = v.Symbol
	}
	if v.Name != "" {
		args["tokenName"] = v.Name
	}
	if v.Decimals != nil {
		args["tokenDecimals"] = strconv.Itoa(int(*v.Decimals))
	}
}

// amountWords writes amount of token for an approval's reason: wei for
// ETH, the token's terms otherwise.
func amountWords(amount *big.Int, token negotiation.Address, v TokenView) string {
	if token == (negotiation.Address{}) {
		return fmtAmount(amount) + " wei"
	}
	return v.Format(amount)
}

// tokenLookupTimeout bounds the chain reads a thread view makes for a
// token it has not read yet.
const tokenLookupTimeout = 5 * time.Second

// termsToken returns the token of t's current offer (t.mu held), zero for
// ETH or before any offer.
func termsToken(t *thread) negotiation.Address {
	if c := t.Th.Current(); c != nil {
		return c.Terms.Token
	}
	return negotiation.Address{}
}

// withToken sets v's token from the book, reading it from the chain the
// first time (outside any thread's lock).
func (n *Node) withToken(v *ThreadView) {
	if v.Token == nil {
		return
	}
	if tv, ok := n.tokens.cached(v.Token.Address); ok {
		*v.Token = tv
		return
	}
	parent := n.ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, tokenLookupTimeout)
	defer cancel()
	if tv, err := n.tokens.lookup(ctx, n.client, v.Token.Address); err == nil {
		*v.Token = tv
	}
}

// taskTokenArgs adds the token of a funded task to the arguments of an
// act on it, its address and its metadata (book, when not nil, keeps
// what it reads), so the amounts read in the token's terms and not in
// ETH; it returns the token and its view for the act's reason. A task in
// ETH adds nothing.
func taskTokenArgs(ctx context.Context, book *tokenBook, client *chain.Client, token common.Address, args map[string]any) (negotiation.Address, TokenView) {
	tok := negotiation.Address(token)
	if tok == (negotiation.Address{}) {
		return tok, TokenView{}
	}
	if book == nil {
		book = &tokenBook{}
	}
	tv, err := book.lookup(ctx, client, tok)
	if err != nil {
		tv = TokenView{Address: tok}
	}
	args["token"] = tok.String()
	tokenArgs(tv, args)
	return tok, tv
}
