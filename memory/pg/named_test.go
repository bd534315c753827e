package pg

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestNamedBindsFieldsByTag(t *testing.T) {
	type params struct {
		UserID int64  `db:"user_id"`
		Text   string `db:"text"`
	}
	args := Named(params{UserID: 7, Text: "hi"})
	sql, ordered, err := args.RewriteQuery(context.Background(), nil, "SELECT @text, @user_id, @text", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sql != "SELECT $1, $2, $1" || len(ordered) != 2 || ordered[0] != "hi" || ordered[1] != int64(7) {
		t.Errorf("rewritten to %q %v", sql, ordered)
	}
	// A field the statement does not use, or a name no field carries, is an error.
	if _, _, err := args.RewriteQuery(context.Background(), nil, "SELECT @user_id", nil); err == nil {
		t.Error("an unused field was accepted")
	}
	if _, _, err := args.RewriteQuery(context.Background(), nil, "SELECT @user_id, @text, @chat_id", nil); err == nil {
		t.Error("a name no field carries was accepted")
	}
	var _ pgx.QueryRewriter = args
}

func TestNamedPanicsOnAnUntaggedField(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a field without a db tag")
		}
	}()
	Named(struct{ UserID int64 }{1})
}

type row struct {
	ChatID int64 `db:"chat_id"`
}

func TestNamedFlattensAnEmbeddedStruct(t *testing.T) {
	args := Named(struct {
		row
		Limit int `db:"limit"`
	}{row{5}, 3})
	if len(args) != 2 || args["chat_id"] != int64(5) || args["limit"] != 3 {
		t.Errorf("args %v", args)
	}
}
