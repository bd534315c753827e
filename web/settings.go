package web

import "net/http"

// Setting is a setting the bot runs with, as the settings page shows it:
// Value is never a secret (the wiring masks them).
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Set tells whether the environment (or .env) set it; unset, Value is
	// its default ("" when the setting reads none).
	Set bool `json:"set"`
	// Hidden tells that Value is masked: a key, a token or a secret.
	Hidden bool `json:"hidden,omitempty"`
}

func (s *Server) settings(w http.ResponseWriter, r *http.Request, v viewer) error {
	if s.deps.Settings == nil {
		return errNotFound
	}
	return s.render(w, r, v, "settings", "Settings", map[string]any{"settings": s.deps.Settings()})
}
