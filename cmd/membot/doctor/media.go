package doctor

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net/http"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/memorize"
	"github.com/membot/membot/cmd/membot/app"
	"github.com/membot/membot/internal/netcause"
)

// embeddings embeds one word with EMBEDDINGS_MODEL.
func (d *doctor) embeddings(ctx context.Context) []Line {
	model := d.cfg.Memory.EmbeddingsModel
	if model == "" {
		return []Line{unset("embeddings", "EMBEDDINGS_MODEL is not set: recall is full-text search alone")}
	}
	part := "embeddings " + model
	server := d.cfg.LLM.Embeddings
	vectors, _, err := memorize.NewEmbedder(server.BaseURL, server.APIKey, model, &http.Client{}).Embed(ctx, []string{"membot doctor"})
	if err != nil {
		return []Line{d.mediaFailure(part, err, "EMBEDDINGS_BASE_URL", "EMBEDDINGS_API_KEY", "EMBEDDINGS_MODEL")}
	}
	return []Line{ok(part, "a vector of %d dimensions", len(vectors[0]))}
}

// transcription transcribes a fifth of a second of silence.
func (d *doctor) transcription(ctx context.Context) []Line {
	model := d.cfg.Agent.TranscriptionModel
	if model == "" {
		return []Line{unset("transcription", "TRANSCRIPTION_MODEL is not set: voice messages are not transcribed")}
	}
	part := "transcription " + model
	server := d.cfg.LLM.Transcription
	client := &llm.Client{BaseURL: server.BaseURL, APIKey: server.APIKey, HTTP: &http.Client{}}
	if _, err := client.Transcribe(ctx, model, "doctor.wav", "audio/wav", silence()); err != nil {
		return []Line{d.mediaFailure(part, err, "TRANSCRIPTION_BASE_URL", "TRANSCRIPTION_API_KEY", "TRANSCRIPTION_MODEL")}
	}
	return []Line{ok(part, "transcribed a moment of silence")}
}

// speech says one word with TTS_MODEL and TTS_VOICE.
func (d *doctor) speech(ctx context.Context) []Line {
	model := d.cfg.Agent.TTSModel
	if model == "" {
		return []Line{unset("speech", "TTS_MODEL is not set: answers are not spoken")}
	}
	part := "speech " + model
	server := d.cfg.LLM.Speech
	client := &llm.Client{BaseURL: server.BaseURL, APIKey: server.APIKey, HTTP: &http.Client{}}
	audio, err := client.Speak(ctx, model, d.cfg.Agent.TTSVoice, "OK.")
	if err != nil {
		return []Line{d.mediaFailure(part, err, "TTS_BASE_URL", "TTS_API_KEY", "TTS_MODEL and TTS_VOICE")}
	}
	return []Line{ok(part, "said a word in the voice %s (%d bytes of audio)", d.cfg.Agent.TTSVoice, len(audio))}
}

// pictures draws one small picture with IMAGE_MODEL (it costs one
// picture at the server's price).
func (d *doctor) pictures(ctx context.Context) []Line {
	model := d.cfg.Images.Model
	if model == "" {
		return []Line{unset("pictures", "IMAGE_MODEL is not set: /image and generate_image are off")}
	}
	part := "pictures " + model
	server := d.cfg.LLM.Images
	client := &llm.Client{BaseURL: server.BaseURL, APIKey: server.APIKey, HTTP: &http.Client{}}
	img, err := client.GenerateImage(ctx, model, "a small blue dot on white")
	if err != nil {
		return []Line{d.mediaFailure(part, err, "IMAGE_BASE_URL", "IMAGE_API_KEY", "IMAGE_MODEL")}
	}
	return []Line{ok(part, "drew a picture (%s, %d bytes)", img.MimeType, len(img.Data))}
}

// mediaFailure is the line of a failed call of a model server's endpoint.
func (d *doctor) mediaFailure(part string, err error, urlSetting, keySetting, modelSetting string) Line {
	cause := netcause.Explain(statusOf(err), app.ModelService(urlSetting, keySetting))
	if cause.Kind == netcause.NotFound {
		cause.Fix = "check " + modelSetting + " and " + urlSetting + " (this server may not offer the endpoint)"
	}
	return because(part, cause)
}

// statusOf gives go-openai's error of an HTTP status (the embeddings'
// client) the status netcause reads.
func statusOf(err error) error {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0 {
		return &httpStatus{err: err, code: apiErr.HTTPStatusCode, message: apiErr.Message}
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) && reqErr.HTTPStatusCode != 0 {
		return &httpStatus{err: err, code: reqErr.HTTPStatusCode, message: reqErr.HTTPStatus}
	}
	return err
}

type httpStatus struct {
	err     error
	code    int
	message string
}

func (e *httpStatus) Error() string             { return e.err.Error() }
func (e *httpStatus) Unwrap() error             { return e.err }
func (e *httpStatus) HTTPStatus() (int, string) { return e.code, e.message }

// silence is a WAV file of 0.2 s of silence: 16 kHz, mono, 16 bits.
func silence() []byte {
	const rate, samples = 16000, 3200
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) } // to memory: cannot fail
	b.WriteString("RIFF")
	le(uint32(36 + 2*samples))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(1)) // PCM
	le(uint16(1)) // mono
	le(uint32(rate))
	le(uint32(2 * rate))
	le(uint16(2))
	le(uint16(16))
	b.WriteString("data")
	le(uint32(2 * samples))
	b.Write(make([]byte, 2*samples))
	return b.Bytes()
}
