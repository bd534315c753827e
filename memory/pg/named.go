package pg

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Named binds the fields of params, a struct whose every field carries the
// name of its argument (`db:"user_id"`), to a statement's @user_id
// arguments; the fields of a struct embedded in it count as its own, and
// so do those of more structs given after it (at most one: say, a
// statement's embedding beside its own params). The arguments are strict:
// a name the statement uses that no field carries, or a field the
// statement does not use, fails the query, so a statement and its params
// struct cannot drift apart unnoticed.
func Named(params any, more ...any) Args {
	if len(more) >= maxParts {
		panic(fmt.Sprintf("pg.Named: %d params structs, at most %d", len(more)+1, maxParts))
	}
	var a Args
	a.parts[0] = reflect.ValueOf(params)
	for i, p := range more {
		a.parts[i+1] = reflect.ValueOf(p)
	}
	return a
}

// maxParts is how many params structs one statement's arguments may come
// from.
const maxParts = 2

// Args are a statement's named arguments, bound by Named. pgx hands them
// the statement to rewrite (pgx.QueryRewriter); what the rewrite does
// depends only on the statement and the params structs' types, so it is
// worked out once for each pair (compile) and kept: a run then only copies
// the fields into $1, $2, ... in order.
type Args struct {
	parts [maxParts]reflect.Value
}

var _ pgx.QueryRewriter = Args{}

// RewriteQuery is sql with its @names written as $n, and the fields of
// the params structs in that order.
func (a Args) RewriteQuery(_ context.Context, _ *pgx.Conn, sql string, args []any) (string, []any, error) {
	if len(args) > 0 {
		return "", nil, fmt.Errorf("pg.Named: %d positional arguments beside the named ones", len(args))
	}
	var types [maxParts]reflect.Type
	for i, p := range a.parts {
		if p.IsValid() {
			types[i] = p.Type()
		}
	}
	c := compiled(sql, types)
	if c.err != nil {
		return "", nil, c.err
	}
	out := make([]any, len(c.from))
	for i, f := range c.from {
		out[i] = a.parts[f.part].FieldByIndex(f.index).Interface()
	}
	return c.sql, out, nil
}

// statementKey is a statement with the types of the params structs it
// runs with.
type statementKey struct {
	sql   string
	types [maxParts]reflect.Type
}

// compiledStatement is a statement rewritten for its params structs: the
// text PostgreSQL runs, and the field each $n is read from; or why the
// two do not fit.
type compiledStatement struct {
	sql  string
	from []source
	err  error
}

// source is where the value of one $n is: a field of a params struct.
type source struct {
	part  int
	index []int
}

// compiledStatements are the statements compiled so far, by
// statementKey: as many as the program has statements with named
// arguments.
var compiledStatements sync.Map // statementKey -> *compiledStatement

// compiled is sql compiled for params structs of types, from the cache;
// the first run of a pair compiles it (two at once may both: the results
// are equal).
func compiled(sql string, types [maxParts]reflect.Type) *compiledStatement {
	key := statementKey{sql, types}
	if c, ok := compiledStatements.Load(key); ok {
		return c.(*compiledStatement)
	}
	c, _ := compiledStatements.LoadOrStore(key, compile(sql, types))
	return c.(*compiledStatement)
}

// compile rewrites sql for params structs of types with pgx's own rewrite,
// given each argument's name as its value: the arguments it returns are
// then the names in $n order.
func compile(sql string, types [maxParts]reflect.Type) *compiledStatement {
	where := map[string]source{}
	names := pgx.StrictNamedArgs{}
	for part, t := range types {
		if t == nil {
			continue
		}
		fields, err := namesOf(t)
		if err != nil {
			return &compiledStatement{err: err}
		}
		for _, f := range fields {
			if _, twice := where[f.name]; twice {
				return &compiledStatement{err: fmt.Errorf("pg.Named: argument %s is carried by two fields (%v)", f.name, types[:part+1])}
			}
			where[f.name] = source{part, f.index}
			names[f.name] = f.name
		}
	}
	text, order, err := names.RewriteQuery(context.Background(), nil, sql, nil)
	if err != nil {
		return &compiledStatement{err: fmt.Errorf("pg.Named: %w", err)}
	}
	c := &compiledStatement{sql: text, from: make([]source, len(order))}
	for i, name := range order {
		c.from[i] = where[name.(string)]
	}
	return c
}

// field is one argument of a params struct: its name, and where it is.
type field struct {
	name  string
	index []int
}

// namesOf is the `db` tag of each field of t, a params struct; a field
// without one fails every run of the statement, as a name that does not
// fit does.
func namesOf(t reflect.Type) ([]field, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("pg.Named: %v is not a params struct", t)
	}
	var out []field
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue // its fields are listed too
		}
		name, ok := f.Tag.Lookup("db")
		if !ok || name == "" || !f.IsExported() {
			return nil, fmt.Errorf("pg.Named: field %s of %v has no db tag or is unexported", f.Name, t)
		}
		out = append(out, field{name, f.Index})
	}
	return out, nil
}
