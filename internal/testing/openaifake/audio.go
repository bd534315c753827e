package openaifake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"unicode/utf8"
)

// The audio endpoints (platform.openai.com/docs/api-reference/audio):
// /v1/audio/transcriptions takes multipart/form-data with the recording
// as "file" and answers {"text": ..., "usage": {"type": "duration",
// "seconds": ...}}; /v1/audio/speech takes JSON {model, input, voice,
// response_format} and answers with the audio's bytes.

// Transcription is one transcription request, as received.
type Transcription struct {
	Model          string
	ResponseFormat string
	FileName       string
	MimeType       string
	Audio          []byte // exactly the bytes of the "file" part
}

// Speech is one speech request, as received.
type Speech struct {
	Model, Voice, Input, Format string
}

type audio struct {
	mu             sync.Mutex
	transcriptions []Transcription
	speeches       []Speech
	hear           func(audio []byte) (text string, seconds float64)
	failAudio      int // answer the next audio requests with this status
}

// Hear sets what the fake hears in a recording, and how long it is. By
// default a recording that is UTF-8 text is heard as that text (tests
// "record" what they want heard), anything else as "(noise)"; a second
// for every 1,000 bytes.
func (s *Server) Hear(fn func(audio []byte) (string, float64)) {
	s.audio.mu.Lock()
	defer s.audio.mu.Unlock()
	s.audio.hear = fn
}

// FailAudio makes the audio endpoints answer with status until cleared with 0.
func (s *Server) FailAudio(status int) {
	s.audio.mu.Lock()
	defer s.audio.mu.Unlock()
	s.audio.failAudio = status
}

// Transcriptions returns the transcription requests received so far.
func (s *Server) Transcriptions() []Transcription {
	s.audio.mu.Lock()
	defer s.audio.mu.Unlock()
	return append([]Transcription(nil), s.audio.transcriptions...)
}

// Speeches returns the speech requests received so far.
func (s *Server) Speeches() []Speech {
	s.audio.mu.Lock()
	defer s.audio.mu.Unlock()
	return append([]Speech(nil), s.audio.speeches...)
}

// SpokenPrefix begins the audio the fake's speech endpoint returns (then
// comes the input text): an OGG file's magic.
const SpokenPrefix = "OggS"

// serveAudio answers the audio endpoints; false for any other path.
func (s *Server) serveAudio(w http.ResponseWriter, r *http.Request) bool {
	switch r.URL.Path {
	case "/v1/audio/transcriptions":
		s.transcribe(w, r)
	case "/v1/audio/speech":
		s.speak(w, r)
	default:
		return false
	}
	return true
}

func (s *Server) transcribe(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		audioError(w, http.StatusBadRequest, "the request must be multipart/form-data")
		return
	}
	files := r.MultipartForm.File["file"]
	model := r.FormValue("model")
	if len(files) != 1 || model == "" {
		audioError(w, http.StatusBadRequest, "file and model are required")
		return
	}
	f, err := files[0].Open()
	if err != nil {
		audioError(w, http.StatusBadRequest, err.Error())
		return
	}
	data, _ := io.ReadAll(f)
	f.Close()
	s.audio.mu.Lock()
	s.audio.transcriptions = append(s.audio.transcriptions, Transcription{Model: model, ResponseFormat: r.FormValue("response_format"),
		FileName: files[0].Filename, MimeType: files[0].Header.Get("Content-Type"), Audio: data})
	fail, hear := s.audio.failAudio, s.audio.hear
	s.audio.mu.Unlock()
	if fail != 0 {
		audioError(w, fail, fmt.Sprintf("injected failure %d", fail))
		return
	}
	if hear == nil {
		hear = textHeard
	}
	text, seconds := hear(data)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"text": text, "usage": map[string]any{"type": "duration", "seconds": seconds}})
}

func textHeard(audio []byte) (string, float64) {
	seconds := float64(len(audio)) / 1000
	if utf8.Valid(audio) {
		return string(audio), seconds
	}
	return "(noise)", seconds
}

func (s *Server) speak(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string `json:"model"`
		Input          string `json:"input"`
		Voice          string `json:"voice"`
		ResponseFormat string `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || req.Input == "" || req.Voice == "" {
		audioError(w, http.StatusBadRequest, "model, input and voice are required")
		return
	}
	s.audio.mu.Lock()
	s.audio.speeches = append(s.audio.speeches, Speech{Model: req.Model, Voice: req.Voice, Input: req.Input, Format: req.ResponseFormat})
	fail := s.audio.failAudio
	s.audio.mu.Unlock()
	if fail != 0 {
		audioError(w, fail, fmt.Sprintf("injected failure %d", fail))
		return
	}
	w.Header().Set("Content-Type", "audio/ogg")
	io.WriteString(w, SpokenPrefix+req.Input)
}

func audioError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}
