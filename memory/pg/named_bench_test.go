package pg

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/membot/membot/internal/sqlfile"
)

// BenchmarkNamed is what binding a params struct costs each time a
// statement runs: Named, and the rewrite pgx asks of it, for memory's
// widest statement (insertLLMCall, 13 arguments) and its longest with
// named arguments (turnHistory, 4 in 2.2 kB).
func BenchmarkNamed(b *testing.B) {
	set := sqlfile.Load(os.DirFS(".."), "memory")
	ctx := context.Background()
	for _, name := range []string{"insertLLMCall", "turnHistory"} {
		sql, ok := set.Lookup(name)
		if !ok {
			b.Fatalf("no statement %s in memory/sql", name)
		}
		params := paramsOf(sql)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Named(params).RewriteQuery(ctx, nil, sql, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var argumentName = regexp.MustCompile(`@([A-Za-z_][A-Za-z0-9_]*)`)

// paramsOf is a params struct for sql: an int64 field for each of its
// @names, each set to a value that takes an allocation to box, as most
// real arguments do.
func paramsOf(sql string) any {
	var names []string
	for _, m := range argumentName.FindAllStringSubmatch(sql, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	fields := make([]reflect.StructField, len(names))
	for i, name := range names {
		fields[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[int64](), Tag: reflect.StructTag(`db:"` + name + `"`)}
	}
	v := reflect.New(reflect.StructOf(fields)).Elem()
	for i := range fields {
		v.Field(i).SetInt(int64(1000 + i))
	}
	return v.Interface()
}
