package pg

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// rewrite is what pgx asks of args before it runs sql.
func rewrite(args Args, sql string) (string, []any, error) {
	return args.RewriteQuery(context.Background(), nil, sql, nil)
}

func TestNamedBindsFieldsByTag(t *testing.T) {
	type params struct {
		UserID int64  `db:"user_id"`
		Text   string `db:"text"`
	}
	for _, p := range []params{{UserID: 7, Text: "hi"}, {UserID: 8, Text: "again"}} { // the second run is the compiled one
		sql, ordered, err := rewrite(Named(p), "SELECT @text, @user_id, @text, '@user_id' -- @nobody")
		if err != nil {
			t.Fatal(err)
		}
		if sql != "SELECT $1, $2, $1, '@user_id' -- @nobody" || len(ordered) != 2 || ordered[0] != p.Text || ordered[1] != p.UserID {
			t.Errorf("rewritten to %q %v", sql, ordered)
		}
	}
}

// TestNamedRefusesWhatDoesNotFit: each mistake fails every run of the
// statement, the first and the compiled ones after it.
func TestNamedRefusesWhatDoesNotFit(t *testing.T) {
	type params struct {
		UserID int64  `db:"user_id"`
		Text   string `db:"text"`
	}
	type clash struct {
		Text string `db:"text"`
	}
	cases := []struct {
		name string
		args Args
		sql  string
		want string
	}{
		{"a field the statement does not use", Named(params{}), "SELECT @user_id", "argument text of StrictNamedArgs not found"},
		{"a name no field carries", Named(params{}), "SELECT @user_id, @text, @chat_id", "argument chat_id found in sql query but not present"},
		{"a field without a db tag", Named(struct{ UserID int64 }{1}), "SELECT @user_id", "field UserID of struct { UserID int64 } has no db tag"},
		{"an unexported field", Named(struct {
			userID int64 `db:"user_id"`
		}{1}), "SELECT @user_id", "has no db tag or is unexported"},
		{"not a struct", Named(7), "SELECT @user_id", "int is not a params struct"},
		{"a name carried twice", Named(params{}, clash{}), "SELECT @user_id, @text", "argument text is carried by two fields"},
	}
	for _, c := range cases {
		for run := range 2 {
			if _, _, err := rewrite(c.args, c.sql); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, run %d: %v; want an error with %q", c.name, run+1, err, c.want)
			}
		}
	}
	if _, _, err := Named(params{}).RewriteQuery(context.Background(), nil, "SELECT @user_id, @text", []any{1}); err == nil {
		t.Error("a positional argument beside the named ones was accepted")
	}
}

func TestNamedPanicsOnMoreThanTwoStructs(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for three params structs")
		}
	}()
	Named(struct{}{}, struct{}{}, struct{}{})
}

type row struct {
	ChatID int64 `db:"chat_id"`
}

func TestNamedFlattensEmbeddedAndMoreStructs(t *testing.T) {
	type vector struct {
		Embedding string `db:"embedding"`
	}
	args := Named(struct {
		row
		Limit int `db:"limit"`
	}{row{5}, 3}, vector{"[1,2]"})
	sql, ordered, err := rewrite(args, "SELECT @embedding, @limit, @chat_id")
	if err != nil {
		t.Fatal(err)
	}
	if sql != "SELECT $1, $2, $3" || fmt.Sprint(ordered) != "[[1,2] 3 5]" {
		t.Errorf("rewritten to %q %v", sql, ordered)
	}
}

// TestNamedCompilesOnceForManyAtOnce: runs of one statement at once, the
// first ones among them, each get their own values (go test -race also
// checks the cache).
func TestNamedCompilesOnceForManyAtOnce(t *testing.T) {
	type params struct {
		N int `db:"n"`
	}
	const sql = "SELECT @n::int + 0 -- at once"
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			text, ordered, err := rewrite(Named(params{i}), sql)
			if err == nil && (text != "SELECT $1::int + 0 -- at once" || len(ordered) != 1 || ordered[0] != i) {
				err = fmt.Errorf("run %d: rewritten to %q %v", i, text, ordered)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	n := 0
	compiledStatements.Range(func(k, _ any) bool {
		if k.(statementKey).sql == sql {
			n++
		}
		return true
	})
	if n != 1 {
		t.Errorf("the statement is kept %d times, want once", n)
	}
}
