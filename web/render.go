package web

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/membot/membot/internal/visible"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/console"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// parsePages is the templates by page name, each with the layout, their
// times shown in loc.
func parsePages(loc *time.Location) map[string]*template.Template {
	funcs := template.FuncMap{
		"when": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.In(loc).Format("2006-01-02 15:04")
		},
		"cut":     cut,
		"more":    more,
		"rest":    func(length int) int { return max(length-shownChars, 0) },
		"visible": visible.Lines,
		"json": func(v any) (template.JS, error) {
			b, err := json.Marshal(v)
			return template.JS(b), err
		},
	}
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, path := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(path, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		if strings.HasPrefix(name, "_") { // a part of a page, served alone (htmx)
			out[name] = template.Must(template.New(name+".html").Funcs(funcs).ParseFS(templateFiles, path))
			continue
		}
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", path, "templates/_*.html"))
	}
	return out
}

// shownChars is how much of a stored text a page shows before "(N more
// characters)" and a link to the whole.
const shownChars = 2000

// Every stored text goes through html/template's escaping; visible also
// shows the characters that would hide or reorder text (visible.Lines).

// cut is the first shownChars characters of s, made visible.
func cut(s string) string {
	s, _ = visible.Runes(s, shownChars)
	return visible.Lines(s)
}

// more is how many characters cut left out, 0 for none.
func more(s string) int {
	if n := utf8.RuneCountInString(s); n > shownChars {
		return n - shownChars
	}
	return 0
}

// view is what a page's template gets: the page's own data and what the
// layout needs.
type view struct {
	Title  string
	Nav    string
	CSRF   string
	Signed bool
	Data   any
}

// render answers with the page name rendered around data, or with data
// as JSON when the request asks for it.
func (s *Server) render(w http.ResponseWriter, r *http.Request, v viewer, name, title string, data any) error {
	if wantsJSON(r) {
		return writeJSON(w, http.StatusOK, data)
	}
	t, ok := s.pages[name]
	if !ok {
		return fmt.Errorf("no page %s", name)
	}
	var b strings.Builder
	if err := t.Execute(&b, view{Title: title, Nav: name, CSRF: v.CSRF, Signed: v.SessionID != 0, Data: data}); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, err := w.Write([]byte(b.String()))
	return err
}

func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

func writeJSON(w http.ResponseWriter, status int, data any) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(data)
}

// errNotFound is a page for something that is not there.
var errNotFound = errors.New("not found")

// failed answers a page's error: what is not there as 404, anything else
// as 500 with a plain apology (the error goes to the log, not the page).
func (s *Server) failed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errNotFound) || errors.Is(err, console.ErrNotFound) || errors.Is(err, memory.ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, "There is nothing here.")
		return
	}
	s.deps.Log.Error("web: page failed", "path", r.URL.Path, "err", err)
	s.fail(w, r, http.StatusInternalServerError, "Something went wrong on this page; the log says what.")
}

// fail answers status with a short text, as a page or as JSON.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, text string) {
	if wantsJSON(r) {
		_ = writeJSON(w, status, map[string]string{"error": text})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = s.pages["message"].Execute(w, view{Title: http.StatusText(status), Data: text})
}

// staticHandler serves the embedded scripts and styles.
func staticHandler() http.Handler {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err)
	}
	fileServer := http.StripPrefix("/static/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fileServer.ServeHTTP(w, r)
	})
}
