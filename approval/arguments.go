package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Limits on an action's arguments.
const (
	// MaxArgumentsBytes bounds the JSON text of an action's arguments.
	MaxArgumentsBytes = 64 << 10
	// MaxArgumentsDepth bounds the nesting of an action's arguments; deeper
	// values (and cyclic Go values) are refused.
	MaxArgumentsDepth = 32
)

// maxSafeInteger is 2^53: integers beyond it are not exactly representable
// as the ECMAScript numbers JCS writes.
const maxSafeInteger = 1 << 53

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	bigIntType     = reflect.TypeFor[big.Int]()
	bigFloatType   = reflect.TypeFor[big.Float]()
	bigRatType     = reflect.TypeFor[big.Rat]()
	numberType     = reflect.TypeFor[json.Number]()
)

// canonicalArguments returns the JCS form of args, a JSON object given as a
// Go value (maps with string keys, slices, strings, booleans, numbers, nil,
// json.Number, json.RawMessage) or as JSON text ([]byte or
// json.RawMessage). nil is the empty object. Values JCS cannot carry
// unchanged are refused: invalid UTF-8, non-finite numbers, integers beyond
// 2^53 and numbers whose digits a double cannot hold (send those as decimal
// strings), big numbers, functions, channels, and values nested deeper
// than MaxArgumentsDepth (which includes cycles).
func canonicalArguments(args any) (json.RawMessage, error) {
	var raw []byte
	switch v := args.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	default:
		if err := checkValue(reflect.ValueOf(args), 0); err != nil {
			return nil, err
		}
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	return canonicalJSONObject(raw)
}

// canonicalJSONObject checks that raw is a JSON object whose every value
// survives canonicalisation unchanged and returns its JCS form (RFC 8785,
// jsontext's canonical form: TestCanonicalAgreesWithTheJCSLibrary keeps
// it equal to gowebpki/jcs's).
func canonicalJSONObject(raw []byte) (json.RawMessage, error) {
	if len(raw) > MaxArgumentsBytes {
		return nil, fmt.Errorf("arguments are %d bytes, more than %d", len(raw), MaxArgumentsBytes)
	}
	if !utf8.Valid(raw) {
		return nil, errors.New("arguments are not valid UTF-8")
	}
	if err := checkNumbers(raw); err != nil {
		return nil, err
	}
	out := jsontext.Value(bytes.Clone(raw))
	if err := out.Canonicalize(); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if out.Kind() != '{' {
		return nil, errors.New("arguments must be a JSON object")
	}
	return json.RawMessage(out), nil
}

// checkNumbers walks the JSON text raw and refuses any number literal that
// JCS would not write back as the same value, and nesting deeper than
// MaxArgumentsDepth.
func checkNumbers(raw []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	for {
		var err error
		switch k := dec.PeekKind(); k {
		case '0':
			var lit jsontext.Value
			if lit, err = dec.ReadValue(); err == nil {
				err = checkNumber(string(lit))
				if err != nil {
					return err
				}
			}
		default:
			if _, err = dec.ReadToken(); err == nil {
				switch k {
				case '{', '[':
					if dec.StackDepth() > MaxArgumentsDepth {
						return fmt.Errorf("arguments nest deeper than %d", MaxArgumentsDepth)
					}
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("arguments: %w", err)
		}
	}
}

// checkNumber refuses a number literal whose value changes when it is read
// as a double and written back the way JCS writes it.
func checkNumber(lit string) error {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Errorf("number %s is not representable (use a decimal string)", lit)
	}
	if f == 0 {
		// Zero is exact when every digit is zero; a non-zero literal that
		// reads as zero underflowed. Deciding it here also keeps a tiny
		// literal such as 1e-99999999 from costing a huge big.Rat.
		mant := lit
		if i := strings.IndexAny(lit, "eE"); i >= 0 {
			mant = lit[:i]
		}
		if strings.Trim(mant, "-+0.") != "" {
			return fmt.Errorf("number %s underflows (use a decimal string)", lit)
		}
		return nil
	}
	// A non-zero double bounds the exponent by the literal's own length,
	// so the exact comparison below stays cheap.
	want, ok := new(big.Rat).SetString(lit)
	if !ok {
		return fmt.Errorf("number %s is not representable", lit)
	}
	got, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	if !ok || want.Cmp(got) != 0 {
		return fmt.Errorf("number %s is not exactly representable as a JSON number (use a decimal string)", lit)
	}
	return nil
}

// checkValue refuses Go values that JSON cannot carry faithfully.
func checkValue(v reflect.Value, depth int) error {
	if depth > MaxArgumentsDepth {
		return fmt.Errorf("arguments nest deeper than %d (or are cyclic)", MaxArgumentsDepth)
	}
	if !v.IsValid() {
		return nil // nil interface: JSON null
	}
	t := v.Type()
	switch t {
	case rawMessageType:
		return nil // checked as JSON text after marshalling
	case numberType:
		return checkNumber(v.String())
	case bigIntType, bigFloatType, bigRatType:
		return fmt.Errorf("%s is not representable (use a decimal string)", t)
	}
	switch v.Kind() {
	case reflect.Bool:
		return nil
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			return errors.New("arguments hold a string that is not valid UTF-8")
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := v.Int(); n > maxSafeInteger || n < -maxSafeInteger {
			return fmt.Errorf("integer %d is beyond 2^53 (use a decimal string)", n)
		}
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if n := v.Uint(); n > maxSafeInteger {
			return fmt.Errorf("integer %d is beyond 2^53 (use a decimal string)", n)
		}
		return nil
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("number %v is not finite", f)
		}
		return nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkValue(v.Elem(), depth+1)
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("map keys of type %s are not strings", t.Key())
		}
		it := v.MapRange()
		for it.Next() {
			if !utf8.ValidString(it.Key().String()) {
				return errors.New("arguments hold a member name that is not valid UTF-8")
			}
			if err := checkValue(it.Value(), depth+1); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if v.IsNil() || t.Elem().Kind() == reflect.Uint8 {
			return nil // nil is null; []byte is a base64 string
		}
		fallthrough
	case reflect.Array:
		for i := range v.Len() {
			if err := checkValue(v.Index(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
		for i := range v.NumField() {
			if !t.Field(i).IsExported() {
				continue
			}
			if err := checkValue(v.Field(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("a value of type %s is not representable in JSON", t)
}
