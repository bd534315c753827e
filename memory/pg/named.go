package pg

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Named binds the fields of params, a struct whose every field carries the
// name of its argument (`db:"user_id"`), to a statement's @user_id
// arguments. The arguments are strict: a name the statement uses that no
// field carries, or a field the statement does not use, fails the query,
// so a statement and its params struct cannot drift apart unnoticed.
func Named(params any) pgx.StrictNamedArgs {
	v := reflect.ValueOf(params)
	fields := namesOf(v.Type())
	args := make(pgx.StrictNamedArgs, len(fields))
	for i, name := range fields {
		args[name] = v.Field(i).Interface()
	}
	return args
}

// names are the argument names of each params struct type, read once.
var names sync.Map // reflect.Type -> []string

// namesOf is the `db` tag of each field of t, a params struct; a field
// without one is a mistake in the program, which panics at its first use.
func namesOf(t reflect.Type) []string {
	if cached, ok := names.Load(t); ok {
		return cached.([]string)
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("pg.Named: %v is not a params struct", t))
	}
	out := make([]string, t.NumField())
	for i := range out {
		f := t.Field(i)
		name, ok := f.Tag.Lookup("db")
		if !ok || name == "" || !f.IsExported() {
			panic(fmt.Sprintf("pg.Named: field %s of %v has no db tag or is unexported", f.Name, t))
		}
		out[i] = name
	}
	names.Store(t, out)
	return out
}
