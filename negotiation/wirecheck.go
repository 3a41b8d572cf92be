package negotiation

import (
	"reflect"
)

// checker applies the wire rules to values a node built (Build): the same
// rules Decode applies while reading, on the Go values, where a member is
// present exactly when encoding/json writes it (omitempty leaves out the
// empty ones). TestBuildAgreesWithDecode and FuzzBuildAgreesWithDecode
// hold the two to one verdict.
type checker struct {
	tracker
	deep *Error // the first failure beyond the schema (a uint256 over 2^256-1)
}

var zeroSignature = HexBytes(make([]byte, 64))

// checkBuilt checks the envelope w and its payload p with the wire rules.
func checkBuilt(w *wireEnvelope, p Payload) error {
	rs, err := compiledRules()
	if err != nil {
		return err
	}
	var c checker
	// The envelope is checked as it will be sent: with a signature (its
	// form is the signer's; every ed25519 signature has it).
	signed := *w
	signed.Signature = zeroSignature
	c.value(rs.envelope, reflect.ValueOf(&signed).Elem())
	if c.best != nil {
		return c.best
	}
	c.path = append(c.path[:0], "/payload"...)
	c.value(rs.payloads[p.MessageType()], reflect.ValueOf(p).Elem())
	if c.best != nil {
		return c.best
	}
	if c.deep != nil {
		return c.deep
	}
	return nil
}

func (c *checker) value(p *plan, v reflect.Value) {
	rl := p.r
	switch p.kind {
	case pAny:
		return // the payload: checked with the rule of its type
	case pPtr:
		if !v.IsNil() {
			c.value(p.elem, v.Elem())
		}
		return
	case pString:
		c.checkString(rl, []byte(v.String()))
	case pUint256:
		u := v.Addr().Interface().(*Uint256)
		if c.checkString(rl, []byte(u.String())) && u.Cmp(maxUint256) > 0 && c.deep == nil {
			c.deep = reject(CodeBadInteger, string(c.path), "exceeds 2^256-1")
		}
	case pText:
		b, err := v.Addr().Interface().(interface{ MarshalText() ([]byte, error) }).MarshalText()
		if err != nil {
			c.fail(rl.code, nil, "%v", err)
			return
		}
		c.checkString(rl, b)
	case pInt, pUint:
		var x int64
		if p.kind == pInt {
			x = v.Int()
		} else if x = int64(v.Uint()); v.Uint() > 1<<62 {
			x = -1 // out of every rule's range
		}
		if x < rl.min || x > rl.max || x < 0 {
			c.fail(CodeSchemaInvalid, nil, "want an integer from %d to %d, got %d", rl.min, rl.max, x)
		}
	case pSlice:
		n := v.Len()
		if n < rl.minItems || rl.maxItems >= 0 && n > rl.maxItems {
			c.fail(rl.code, nil, "%d items is outside %d..%d", n, rl.minItems, rl.maxItems)
		}
		for i := range n {
			at := c.pushIndex(i)
			c.value(p.elem, v.Index(i))
			c.path = c.path[:at]
			for j := range i {
				if rl.unique && reflect.DeepEqual(v.Index(i).Interface(), v.Index(j).Interface()) {
					c.fail(rl.code, nil, "items %d and %d are equal", j, i)
				}
			}
		}
	case pStruct:
		var seen uint64
		for i := range p.fields {
			f := &p.fields[i]
			fv := v.FieldByIndex(f.index)
			if p.reqSet&f.bit == 0 && empty(fv) {
				continue // omitempty: not written
			}
			seen |= f.bit
			at := c.push([]byte(f.name))
			c.value(f.p, fv)
			c.path = c.path[:at]
		}
		for _, cd := range rl.conds {
			f := p.field([]byte(cd.prop))
			if seen&f.bit == 0 || !inEnum(cd.values, []byte(v.FieldByIndex(f.index).String())) {
				continue
			}
			for _, name := range cd.then {
				if g := p.field([]byte(name)); seen&g.bit == 0 {
					c.fail(CodeSchemaInvalid, nil, "%s %s needs member %s", cd.prop, cd.values, name)
				}
			}
		}
	}
}

// empty reports whether encoding/json's omitempty leaves v out.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}
