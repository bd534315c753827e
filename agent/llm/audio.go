package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strings"
)

// The audio endpoints of OpenAI-compatible servers
// (platform.openai.com/docs/api-reference/audio): speech to text and text
// to speech.

// Transcription is what /audio/transcriptions made of a recording.
type Transcription struct {
	Text string
	// Usage, as the server reports it: seconds of audio (whisper-1) or
	// tokens (gpt-4o-transcribe); zero when it sent none.
	Seconds      float64
	InputTokens  int
	OutputTokens int
}

// maxTranscriptBytes bounds the response of a transcription: a text of
// what was said in at most 20 MB of audio.
const maxTranscriptBytes = 1 << 20

// Transcribe sends a recording to {BaseURL}/audio/transcriptions as
// multipart/form-data (file, model, response_format=json) and returns the
// text. fileName tells the server the format by its extension.
func (c *Client) Transcribe(ctx context.Context, model, fileName, mimeType string, audio []byte) (*Transcription, error) {
	var body bytes.Buffer
	form := multipart.NewWriter(&body)
	for _, f := range [][2]string{{"model", model}, {"response_format", "json"}} {
		if err := form.WriteField(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	head := textproto.MIMEHeader{}
	head.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, strings.ReplaceAll(fileName, `"`, "")))
	if mimeType == "" {
		mimeType = "application/octet-stream"
	}
	head.Set("Content-Type", mimeType)
	part, err := form.CreatePart(head)
	if err != nil {
		return nil, err
	}
	if _, err := part.Write(audio); err != nil {
		return nil, err
	}
	if err := form.Close(); err != nil {
		return nil, err
	}
	resp, err := c.post(ctx, "/audio/transcriptions", form.FormDataContentType(), "application/json", &body)
	if err != nil {
		return nil, c.redacted(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(&limitedReader{r: resp.Body, left: maxTranscriptBytes})
	if err != nil {
		return nil, c.redacted(callError(ctx, err))
	}
	var out struct {
		Text  string `json:"text"`
		Usage struct {
			Type         string  `json:"type"`
			Seconds      float64 `json:"seconds"`
			InputTokens  int     `json:"input_tokens"`
			OutputTokens int     `json:"output_tokens"`
		} `json:"usage"`
		Duration float64 `json:"duration"` // verbose_json, from servers that send it anyway
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decode the transcription: %w", err)
	}
	t := &Transcription{Text: strings.TrimSpace(out.Text), Seconds: out.Usage.Seconds,
		InputTokens: out.Usage.InputTokens, OutputTokens: out.Usage.OutputTokens}
	if t.Seconds == 0 {
		t.Seconds = out.Duration
	}
	return t, nil
}

// maxSpeechBytes bounds the audio /audio/speech returns.
const maxSpeechBytes = 20 << 20

// Speak asks {BaseURL}/audio/speech to say text with voice, and returns
// the audio as OGG/Opus (response_format "opus"), what Telegram plays as a
// voice message.
func (c *Client) Speak(ctx context.Context, model, voice, text string) ([]byte, error) {
	body, err := json.Marshal(map[string]string{"model": model, "voice": voice, "input": text, "response_format": "opus"})
	if err != nil {
		return nil, err
	}
	resp, err := c.post(ctx, "/audio/speech", "application/json", "", bytes.NewReader(body))
	if err != nil {
		return nil, c.redacted(err)
	}
	defer resp.Body.Close()
	audio, err := io.ReadAll(&limitedReader{r: resp.Body, left: maxSpeechBytes})
	if err != nil {
		return nil, c.redacted(callError(ctx, err))
	}
	return audio, nil
}
