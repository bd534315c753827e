package pg

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Named binds the fields of params, a struct whose every field carries the
// name of its argument (`db:"user_id"`), to a statement's @user_id
// arguments; the fields of a struct embedded in it count as its own. The arguments are strict: a name the statement uses that no
// field carries, or a field the statement does not use, fails the query,
// so a statement and its params struct cannot drift apart unnoticed.
func Named(params any) pgx.StrictNamedArgs {
	v := reflect.ValueOf(params)
	fields := namesOf(v.Type())
	args := make(pgx.StrictNamedArgs, len(fields))
	for _, f := range fields {
		args[f.name] = v.FieldByIndex(f.index).Interface()
	}
	return args
}

// field is one argument of a params struct: its name, and where it is.
type field struct {
	name  string
	index []int
}

// names are the argument names of each params struct type, read once.
var names sync.Map // reflect.Type -> []field

// namesOf is the `db` tag of each field of t, a params struct; a field
// without one is a mistake in the program, which panics at its first use.
func namesOf(t reflect.Type) []field {
	if cached, ok := names.Load(t); ok {
		return cached.([]field)
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("pg.Named: %v is not a params struct", t))
	}
	var out []field
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue // its fields are listed too
		}
		name, ok := f.Tag.Lookup("db")
		if !ok || name == "" || !f.IsExported() {
			panic(fmt.Sprintf("pg.Named: field %s of %v has no db tag or is unexported", f.Name, t))
		}
		out = append(out, field{name, f.Index})
	}
	names.Store(t, out)
	return out
}
