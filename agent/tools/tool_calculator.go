package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/membot/membot/agent"
)

// newCalculator evaluates arithmetic with a small parser of its own: the
// expression is only ever read as numbers, operators and a fixed list of
// functions, never executed as code.
func newCalculator(Env) agent.Tool {
	return agent.Tool{
		Name: "calculator",
		Description: "Evaluates an arithmetic expression exactly as written and returns the number. " +
			"Supports + - * / % ^ (power), parentheses, unary minus, the constants pi and e, and the functions " +
			"sqrt, abs, round, floor, ceil, ln, log10, log2, exp, sin, cos, tan (radians).",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"expression": map[string]any{"type": "string", "description": "e.g. \"(2 + 3) * 4 ^ 2 / sqrt(16)\""},
			},
			"required": []string{"expression"},
		},
		Run: func(_ context.Context, _ *agent.TurnInfo, raw json.RawMessage) (string, error) {
			var args struct {
				Expression string `json:"expression"`
			}
			if err := agent.DecodeArgs(raw, &args); err != nil {
				return "", err
			}
			v, err := Calculate(args.Expression)
			if err != nil {
				return "", err
			}
			return strconv.FormatFloat(v, 'g', 15, 64), nil
		},
	}
}

// maxExpression bounds the input, and so the parser's recursion.
const maxExpression = 1000

// Calculate evaluates an arithmetic expression.
func Calculate(expr string) (float64, error) {
	if strings.TrimSpace(expr) == "" {
		return 0, errors.New("empty expression")
	}
	if len(expr) > maxExpression {
		return 0, fmt.Errorf("expression longer than %d characters", maxExpression)
	}
	p := &calcParser{src: expr}
	v, err := p.sum()
	if err != nil {
		return 0, err
	}
	if p.skipSpace(); p.pos < len(p.src) {
		return 0, fmt.Errorf("unexpected %q at position %d", p.src[p.pos], p.pos+1)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("the result is not a finite number (division by zero or out of range)")
	}
	return v, nil
}

// calcParser is a recursive-descent parser over this grammar:
//
//	sum     = product { ("+" | "-") product }
//	product = unary { ("*" | "/" | "%") unary }
//	unary   = ("-" | "+") unary | power
//	power   = atom [ "^" unary ]        (right-associative)
//	atom    = number | constant | func "(" sum ")" | "(" sum ")"
type calcParser struct {
	src string
	pos int
}

func (p *calcParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
}

// accept consumes c when it comes next.
func (p *calcParser) accept(c byte) bool {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *calcParser) sum() (float64, error) {
	v, err := p.product()
	for err == nil {
		switch {
		case p.accept('+'):
			var r float64
			r, err = p.product()
			v += r
		case p.accept('-'):
			var r float64
			r, err = p.product()
			v -= r
		default:
			return v, nil
		}
	}
	return 0, err
}

func (p *calcParser) product() (float64, error) {
	v, err := p.unary()
	for err == nil {
		var op byte
		switch {
		case p.accept('*'):
			op = '*'
		case p.accept('/'):
			op = '/'
		case p.accept('%'):
			op = '%'
		default:
			return v, nil
		}
		var r float64
		if r, err = p.unary(); err != nil {
			break
		}
		if r == 0 && op != '*' {
			return 0, errors.New("division by zero")
		}
		switch op {
		case '*':
			v *= r
		case '/':
			v /= r
		case '%':
			v = math.Mod(v, r)
		}
	}
	return 0, err
}

func (p *calcParser) unary() (float64, error) {
	if p.accept('-') {
		v, err := p.unary()
		return -v, err
	}
	if p.accept('+') {
		return p.unary()
	}
	return p.power()
}

func (p *calcParser) power() (float64, error) {
	base, err := p.atom()
	if err != nil || !p.accept('^') {
		return base, err
	}
	exp, err := p.unary()
	return math.Pow(base, exp), err
}

var calcFuncs = map[string]func(float64) float64{
	"sqrt": math.Sqrt, "abs": math.Abs, "round": math.Round, "floor": math.Floor, "ceil": math.Ceil,
	"ln": math.Log, "log10": math.Log10, "log2": math.Log2, "exp": math.Exp,
	"sin": math.Sin, "cos": math.Cos, "tan": math.Tan,
}

var calcConsts = map[string]float64{"pi": math.Pi, "e": math.E}

func (p *calcParser) atom() (float64, error) {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return 0, errors.New("the expression ends too early")
	}
	if p.accept('(') {
		v, err := p.sum()
		if err != nil {
			return 0, err
		}
		if !p.accept(')') {
			return 0, errors.New("missing )")
		}
		return v, nil
	}
	start := p.pos
	if c := p.src[p.pos]; isDigit(c) || c == '.' {
		return p.number()
	}
	for p.pos < len(p.src) && (p.src[p.pos] >= 'a' && p.src[p.pos] <= 'z' || isDigit(p.src[p.pos])) {
		p.pos++
	}
	name := p.src[start:p.pos]
	if v, ok := calcConsts[name]; ok {
		return v, nil
	}
	if fn, ok := calcFuncs[name]; ok {
		if !p.accept('(') {
			return 0, fmt.Errorf("%s needs (", name)
		}
		v, err := p.sum()
		if err != nil {
			return 0, err
		}
		if !p.accept(')') {
			return 0, errors.New("missing )")
		}
		return fn(v), nil
	}
	if name == "" {
		return 0, fmt.Errorf("unexpected %q at position %d", p.src[p.pos], p.pos+1)
	}
	return 0, fmt.Errorf("unknown name %q", name)
}

// number reads digits with an optional fraction and exponent: 12, 1.5, 2e-3.
func (p *calcParser) number() (float64, error) {
	start := p.pos
	p.digits()
	if rest := p.src[p.pos:]; len(rest) > 1 && (rest[0] == 'e' || rest[0] == 'E') {
		if isDigit(rest[1]) || len(rest) > 2 && (rest[1] == '-' || rest[1] == '+') && isDigit(rest[2]) {
			p.pos += 2
			p.digits()
		}
	}
	v, err := strconv.ParseFloat(p.src[start:p.pos], 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", p.src[start:p.pos])
	}
	return v, nil
}

func (p *calcParser) digits() {
	for p.pos < len(p.src) && (isDigit(p.src[p.pos]) || p.src[p.pos] == '.') {
		p.pos++
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
