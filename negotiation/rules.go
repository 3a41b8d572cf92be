package negotiation

import (
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// The variables a clause's rule may read (docs/pxp.md lists them with their
// types). Amounts are uint256 values in the token's base unit (wei for
// native ETH), so they compare exactly beyond 2^64.
const (
	RuleVarTitle          = "title"           // string
	RuleVarCategory       = "category"        // string, "" when absent
	RuleVarTotal          = "total"           // uint256: the sum of the milestones
	RuleVarMilestones     = "milestones"      // list(uint256): each milestone's amount
	RuleVarMilestoneCount = "milestone_count" // int
	RuleVarToken          = "token"           // string: EIP-55 address, the zero address for native ETH
	RuleVarDeadline       = "deadline"        // timestamp
	RuleVarCounterparty   = "counterparty"    // string: the other party's EIP-55 address
	RuleVarNow            = "now"             // timestamp: the evaluator's clock, passed in
)

// ruleVars lists every variable, in a fixed order.
var ruleVars = []string{RuleVarTitle, RuleVarCategory, RuleVarTotal, RuleVarMilestones,
	RuleVarMilestoneCount, RuleVarToken, RuleVarDeadline, RuleVarCounterparty, RuleVarNow}

// MaxRuleCost bounds the evaluation of one rule (CEL's runtime cost units).
const MaxRuleCost = 100_000

// U256Type is the CEL type of uint256 amounts in rules.
var U256Type = cel.OpaqueType("parley.uint256")

// celU256 is a uint256 value inside CEL. It is immutable.
type celU256 struct{ v *big.Int }

func newCELU256(x *big.Int) ref.Val {
	if x.Sign() < 0 {
		return types.NewErr("uint256 underflow")
	}
	if x.Cmp(maxUint256) > 0 {
		return types.NewErr("uint256 overflow")
	}
	return celU256{v: x}
}

// ConvertToNative returns the value as a *big.Int or a Uint256.
func (u celU256) ConvertToNative(t reflect.Type) (any, error) {
	switch t {
	case reflect.TypeOf(&big.Int{}):
		return new(big.Int).Set(u.v), nil
	case reflect.TypeOf(Uint256{}):
		return NewUint256(u.v), nil
	}
	return nil, fmt.Errorf("uint256 does not convert to %v", t)
}

// ConvertToType supports string(x) and the type itself.
func (u celU256) ConvertToType(t ref.Type) ref.Val {
	switch t.TypeName() {
	case types.StringType.TypeName():
		return types.String(u.v.String())
	case U256Type.TypeName():
		return u
	case types.TypeType.TypeName():
		return U256Type
	}
	return types.NewErr("uint256 does not convert to %s", t.TypeName())
}

// Equal compares two uint256 values.
func (u celU256) Equal(o ref.Val) ref.Val {
	ov, ok := o.(celU256)
	if !ok {
		return types.False
	}
	return types.Bool(u.v.Cmp(ov.v) == 0)
}

// Type returns the runtime type named like U256Type.
func (u celU256) Type() ref.Type { return u256RuntimeType{} }

// Value returns the *big.Int (callers must not modify it).
func (u celU256) Value() any { return u.v }

// ParseEther parses a decimal amount of ether ("0.5", "12", "1.000000000000000001")
// into wei. At most 18 fractional digits; no sign, exponent or spaces.
func ParseEther(s string) (*big.Int, error) {
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") || len(frac) > 18 {
		return nil, fmt.Errorf("not a decimal ether amount with at most 18 fractional digits: %q", s)
	}
	for _, part := range []string{whole, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return nil, fmt.Errorf("not a decimal ether amount: %q", s)
			}
		}
	}
	v, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", 18-len(frac)), 10)
	if !ok {
		return nil, fmt.Errorf("not a decimal ether amount: %q", s)
	}
	if v.Cmp(maxUint256) > 0 {
		return nil, fmt.Errorf("%q ether exceeds 2^256-1 wei", s)
	}
	return v, nil
}

// FormatEther renders wei as a decimal amount of ether without trailing zeros.
func FormatEther(wei *big.Int) string {
	q, r := new(big.Int).QuoRem(wei, big.NewInt(1e18), new(big.Int))
	if r.Sign() == 0 {
		return q.String()
	}
	frac := strings.TrimRight(fmt.Sprintf("%018s", r.String()), "0")
	return q.String() + "." + frac
}

// Compare implements CEL's ordering against a uint256 or an int.
func (u celU256) Compare(o ref.Val) ref.Val {
	y, ok := bigArg(o)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return types.Int(u.v.Cmp(y))
}

// Add implements uint256 + uint256.
func (u celU256) Add(o ref.Val) ref.Val {
	y, ok := o.(celU256)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return newCELU256(new(big.Int).Add(u.v, y.v))
}

// Subtract implements uint256 - uint256; a negative result is an error.
func (u celU256) Subtract(o ref.Val) ref.Val {
	y, ok := o.(celU256)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return newCELU256(new(big.Int).Sub(u.v, y.v))
}

// Multiply implements uint256 * int.
func (u celU256) Multiply(o ref.Val) ref.Val {
	y, ok := o.(types.Int)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return newCELU256(new(big.Int).Mul(u.v, big.NewInt(int64(y))))
}

// Divide implements uint256 / int for a positive int.
func (u celU256) Divide(o ref.Val) ref.Val {
	y, ok := o.(types.Int)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	if y <= 0 {
		return types.NewErr("uint256 division by %d", int64(y))
	}
	return newCELU256(new(big.Int).Quo(u.v, big.NewInt(int64(y))))
}

// u256RuntimeType is the runtime type of celU256: its name is U256Type's and
// it carries the traits the standard operators dispatch on.
type u256RuntimeType struct{}

// HasTrait reports the ordering and arithmetic traits.
func (u256RuntimeType) HasTrait(t int) bool {
	const mask = traits.ComparerType | traits.AdderType | traits.SubtractorType | traits.MultiplierType | traits.DividerType
	return t&mask == t
}

// TypeName returns "parley.uint256".
func (u256RuntimeType) TypeName() string { return U256Type.TypeName() }

func bigArg(v ref.Val) (*big.Int, bool) {
	switch x := v.(type) {
	case celU256:
		return x.v, true
	case types.Int:
		return big.NewInt(int64(x)), true
	case types.Uint:
		return new(big.Int).SetUint64(uint64(x)), true
	}
	return nil, false
}

func durationOf(unit time.Duration, name string) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		n, ok := v.(types.Int)
		if !ok {
			return types.NewErr("%s takes an int", name)
		}
		limit := int64(100 * 365 * 24 * time.Hour / unit)
		if n < -types.Int(limit) || n > types.Int(limit) {
			return types.NewErr("%s(%d) is out of range", name, n)
		}
		return types.Duration{Duration: time.Duration(n) * unit}
	}
}

func weiOf(v ref.Val) ref.Val {
	switch x := v.(type) {
	case types.String:
		s := string(x)
		if !uintRE.MatchString(s) {
			return types.NewErr("wei(%q): want a canonical decimal integer", s)
		}
		b, _ := new(big.Int).SetString(s, 10)
		return newCELU256(b)
	case types.Int, types.Uint:
		b, _ := bigArg(x)
		return newCELU256(b)
	}
	return types.NewErr("wei takes a string or an int")
}

func ethOf(v ref.Val) ref.Val {
	switch x := v.(type) {
	case types.String:
		b, err := ParseEther(string(x))
		if err != nil {
			return types.NewErr("eth: %v", err)
		}
		return newCELU256(b)
	case types.Int, types.Uint:
		b, _ := bigArg(x)
		return newCELU256(new(big.Int).Mul(b, big.NewInt(1e18)))
	}
	return types.NewErr("eth takes a string or an int")
}

var (
	ruleEnvOnce sync.Once
	ruleEnvVal  *cel.Env
	ruleEnvErr  error
)

// ruleEnv returns the CEL environment every clause rule compiles in. It is
// built once and immutable.
func ruleEnv() (*cel.Env, error) {
	ruleEnvOnce.Do(func() { ruleEnvVal, ruleEnvErr = newRuleEnv() })
	return ruleEnvVal, ruleEnvErr
}

func newRuleEnv() (*cel.Env, error) {
	u := U256Type
	// The standard operators dispatch on traits (celU256 implements them);
	// these overloads only teach the type checker the signatures.
	op := func(name, id string, rhs, result *cel.Type) cel.EnvOption {
		return cel.Function(name, cel.Overload(id, []*cel.Type{u, rhs}, result))
	}
	opts := []cel.EnvOption{
		cel.Variable(RuleVarTitle, cel.StringType),
		cel.Variable(RuleVarCategory, cel.StringType),
		cel.Variable(RuleVarTotal, u),
		cel.Variable(RuleVarMilestones, cel.ListType(u)),
		cel.Variable(RuleVarMilestoneCount, cel.IntType),
		cel.Variable(RuleVarToken, cel.StringType),
		cel.Variable(RuleVarDeadline, cel.TimestampType),
		cel.Variable(RuleVarCounterparty, cel.StringType),
		cel.Variable(RuleVarNow, cel.TimestampType),
		cel.Function("eth",
			cel.Overload("eth_string", []*cel.Type{cel.StringType}, u, cel.UnaryBinding(ethOf)),
			cel.Overload("eth_int", []*cel.Type{cel.IntType}, u, cel.UnaryBinding(ethOf))),
		cel.Function("wei",
			cel.Overload("wei_string", []*cel.Type{cel.StringType}, u, cel.UnaryBinding(weiOf)),
			cel.Overload("wei_int", []*cel.Type{cel.IntType}, u, cel.UnaryBinding(weiOf))),
		cel.Function("days",
			cel.Overload("days_int", []*cel.Type{cel.IntType}, cel.DurationType, cel.UnaryBinding(durationOf(24*time.Hour, "days")))),
		cel.Function("hours",
			cel.Overload("hours_int", []*cel.Type{cel.IntType}, cel.DurationType, cel.UnaryBinding(durationOf(time.Hour, "hours")))),
		cel.Function("string",
			cel.Overload("string_uint256", []*cel.Type{u}, cel.StringType, cel.UnaryBinding(func(v ref.Val) ref.Val {
				return v.ConvertToType(types.StringType)
			}))),
		op(operators.Less, "less_uint256_uint256", u, cel.BoolType),
		op(operators.Less, "less_uint256_int", cel.IntType, cel.BoolType),
		op(operators.Less, "less_uint256_uint", cel.UintType, cel.BoolType),
		op(operators.LessEquals, "less_equals_uint256_uint256", u, cel.BoolType),
		op(operators.LessEquals, "less_equals_uint256_int", cel.IntType, cel.BoolType),
		op(operators.LessEquals, "less_equals_uint256_uint", cel.UintType, cel.BoolType),
		op(operators.Greater, "greater_uint256_uint256", u, cel.BoolType),
		op(operators.Greater, "greater_uint256_int", cel.IntType, cel.BoolType),
		op(operators.Greater, "greater_uint256_uint", cel.UintType, cel.BoolType),
		op(operators.GreaterEquals, "greater_equals_uint256_uint256", u, cel.BoolType),
		op(operators.GreaterEquals, "greater_equals_uint256_int", cel.IntType, cel.BoolType),
		op(operators.GreaterEquals, "greater_equals_uint256_uint", cel.UintType, cel.BoolType),
		op(operators.Add, "add_uint256_uint256", u, u),
		op(operators.Subtract, "subtract_uint256_uint256", u, u),
		op(operators.Multiply, "multiply_uint256_int", cel.IntType, u),
		op(operators.Divide, "divide_uint256_int", cel.IntType, u),
	}
	return cel.NewEnv(opts...)
}

// Rule is a clause's compiled machine rule: a CEL expression over the terms
// that yields a bool.
type Rule struct {
	src  string
	prg  cel.Program
	vars []string
}

// CompileRule compiles src in the rule environment. It fails with
// CodeRuleInvalid when src does not parse, does not type-check, or does not
// yield a bool.
func CompileRule(src string) (*Rule, error) {
	env, err := ruleEnv()
	if err != nil {
		return nil, fmt.Errorf("negotiation: rule environment: %w", err)
	}
	ast, iss := env.Compile(src)
	if iss.Err() != nil {
		return nil, reject(CodeRuleInvalid, "", "%s", strings.TrimSpace(iss.Err().Error()))
	}
	if !ast.OutputType().IsExactType(cel.BoolType) {
		return nil, reject(CodeRuleInvalid, "", "a rule yields a bool, this one %s", ast.OutputType())
	}
	prg, err := env.Program(ast, cel.CostLimit(MaxRuleCost))
	if err != nil {
		return nil, reject(CodeRuleInvalid, "", "%v", err)
	}
	seen := map[string]bool{}
	for _, r := range ast.NativeRep().ReferenceMap() {
		if r != nil && r.Value == nil && len(r.OverloadIDs) == 0 {
			seen[r.Name] = true
		}
	}
	var vars []string
	for _, v := range ruleVars {
		if seen[v] {
			vars = append(vars, v)
		}
	}
	return &Rule{src: src, prg: prg, vars: vars}, nil
}

// Source returns the rule's CEL text.
func (r *Rule) Source() string { return r.src }

// Reads reports whether the rule reads variable v.
func (r *Rule) Reads(v string) bool { return slices.Contains(r.vars, v) }

// Vars returns the variables the rule reads, in the order of the rule
// variable list.
func (r *Rule) Vars() []string { return append([]string(nil), r.vars...) }

// RuleInput is what a rule is evaluated against: the proposed or accepted
// terms, the other party, and the evaluator's clock.
type RuleInput struct {
	Terms        *Terms
	Counterparty Address
	Now          time.Time
}

func (in RuleInput) activation() map[string]any {
	t := in.Terms
	ms := make([]ref.Val, len(t.Milestones))
	total := new(big.Int)
	for i, m := range t.Milestones {
		ms[i] = celU256{v: m.Amount.Big()}
		total.Add(total, &m.Amount.Int)
	}
	return map[string]any{
		RuleVarTitle:          t.Title,
		RuleVarCategory:       t.Category,
		RuleVarTotal:          newCELU256(total),
		RuleVarMilestones:     types.NewRefValList(types.DefaultTypeAdapter, ms),
		RuleVarMilestoneCount: int64(len(t.Milestones)),
		RuleVarToken:          t.Token.String(),
		RuleVarDeadline:       time.Unix(int64(min(t.Deadline, 1<<62)), 0).UTC(),
		RuleVarCounterparty:   in.Counterparty.String(),
		RuleVarNow:            in.Now.UTC(),
	}
}

// Eval evaluates the rule. An evaluation error (an overflow, a bad helper
// argument, the cost limit) is returned as an error: callers treat a rule
// they cannot evaluate as failing closed.
func (r *Rule) Eval(in RuleInput) (bool, error) {
	if in.Terms == nil {
		return false, fmt.Errorf("negotiation: rule %q: no terms to evaluate", r.src)
	}
	return r.evalActivation(in.activation())
}

func (r *Rule) evalActivation(act map[string]any) (bool, error) {
	out, _, err := r.prg.Eval(act)
	if err != nil {
		return false, fmt.Errorf("negotiation: rule %q: %w", r.src, err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("negotiation: rule %q yielded %v", r.src, out)
	}
	return bool(b), nil
}
