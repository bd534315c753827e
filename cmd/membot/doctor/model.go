package doctor

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"slices"
	"strings"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/cmd/membot/app"
	"github.com/membot/membot/internal/netcause"
	"github.com/membot/membot/internal/redact"
)

// modelChecks are a check of each model /model offers, the default first.
func (d *doctor) modelChecks() []check {
	var checks []check
	for _, m := range d.cfg.LLM.Models {
		checks = append(checks, check{"model " + m.Name, 5, func(ctx context.Context) []Line { return d.model(ctx, m) }})
	}
	return checks
}

// model checks one model: the server answers and takes the key, it has
// the model, it streams, it calls a tool when asked to, and it sees an
// image when photos are sent to it.
func (d *doctor) model(ctx context.Context, m app.ModelSetting) []Line {
	part := "model " + m.Name
	service := app.ModelService("OPENAI_BASE_URL", "OPENAI_API_KEY")
	if m.BaseURL != d.cfg.LLM.Chat.BaseURL {
		service.URLSetting = "MODELS"
	}
	client := &llm.Client{BaseURL: m.BaseURL, APIKey: d.cfg.LLM.Chat.APIKey, HTTP: &http.Client{},
		Limits: llm.Limits{Idle: d.timeout}}
	fail := func(err error) Line { return because(part, netcause.Explain(err, service)) }

	callCtx, cancel := d.call(ctx)
	listed, listErr := client.Models(callCtx)
	cancel()
	if listErr != nil && !errors.Is(listErr, llm.ErrNoModelList) {
		return []Line{fail(listErr)}
	}
	callCtx, cancel = d.call(ctx)
	// A few tokens, not one: a reasoning model may answer nothing within one.
	_, err := client.Complete(callCtx, d.request(m, 16, "Answer with one word: OK."), nil)
	cancel()
	if err != nil {
		var apiErr *llm.APIError
		if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound {
			what := fmt.Sprintf("no model %s on this server (%d: %s)", m.Name, apiErr.Status, apiErr.Message)
			if listErr == nil {
				what = fmt.Sprintf("no model %s on this server; it has: %s", m.Name, list(closest(listed, m.Name), 8))
			}
			return []Line{failed(part, what, "check OPENAI_MODEL and MODELS (the name as the server spells it), and "+service.URLSetting)}
		}
		return []Line{fail(err)}
	}
	found := fmt.Sprintf("answers at %s, the key is accepted", redact.URL(m.BaseURL))
	if listErr == nil && !hasModel(listed, m.Name) {
		found += ", though it does not list the model"
	}
	lines := []Line{ok(part, "%s", found)}

	if d.cfg.Bot.Streaming {
		lines = append(lines, d.streaming(ctx, client, m, fail))
	}
	if m.Caps.NoTools {
		lines = append(lines, unset(part+" tools", "not offered (no-tools in MODELS): the bot's tools and memory tools are off for it"))
	} else {
		lines = append(lines, d.toolCall(ctx, client, m, service))
	}
	if d.cfg.Agent.Vision != agent.VisionOff && !m.Caps.NoImages {
		lines = append(lines, d.imageInput(ctx, client, m))
	}
	return lines
}

// request is a small request to m of at most tokens tokens.
func (d *doctor) request(m app.ModelSetting, tokens int, text string) llm.Request {
	req := llm.Request{Model: m.Name, Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are checked by membot doctor."},
		{Role: llm.RoleUser, Content: text}}}
	if m.Caps.TokensField(m.Name) == "max_completion_tokens" {
		req.MaxCompletionTokens = tokens
	} else {
		req.MaxTokens = tokens
	}
	return req
}

// streaming checks a streamed answer, as the bot asks for one
// (STREAMING), and says how the model gives its thinking.
func (d *doctor) streaming(ctx context.Context, client *llm.Client, m app.ModelSetting, fail func(error) Line) Line {
	part := "model " + m.Name + " streaming"
	req := d.request(m, 16, "Answer with one word: OK.")
	req.Stream = true
	if !m.Caps.NoStreamOptions {
		req.StreamOptions = &llm.StreamOptions{IncludeUsage: true}
	}
	callCtx, cancel := d.call(ctx)
	defer cancel()
	resp, err := client.Complete(callCtx, req, func(llm.Delta) {})
	if err != nil {
		line := fail(err)
		line.Part = part
		if line.Fix == "" || strings.Contains(err.Error(), "stream_options") {
			line.Fix = "if the server refuses stream_options, add no-stream-options to " + m.Name + " in MODELS; or set STREAMING=off"
		}
		return line
	}
	thinking := map[string]string{"tags": "; its thinking comes in <think> tags, kept apart from the answer",
		"reasoning_content": "; its thinking comes as reasoning_content", "reasoning": "; its thinking comes as reasoning"}[resp.ReasoningFrom]
	return ok(part, "the answer streams%s", thinking)
}

// toolCall offers one tool and requires a call of it (tool_choice
// "required"): a model, or a server, that ignores tools answers in words.
func (d *doctor) toolCall(ctx context.Context, client *llm.Client, m app.ModelSetting, service netcause.Service) Line {
	part := "model " + m.Name + " tools"
	req := d.request(m, 64, "What time is it? Use the tool.")
	req.Tools = []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "current_time",
		Description: "Tells the current time.", Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}}}
	req.ToolChoice = "required"
	callCtx, cancel := d.call(ctx)
	defer cancel()
	resp, err := client.Complete(callCtx, req, nil)
	fix := "use a model that calls tools (the bot's reminders, memory and MCP tools need them), or add no-tools to " + m.Name + " in MODELS"
	switch {
	case err != nil:
		cause := netcause.Explain(err, service)
		return failed(part, "a request with a tool was refused: "+cause.What, fix)
	case len(resp.Message.ToolCalls) == 0:
		return failed(part, "offered a tool and required to call it, the model answered in words: it (or its server) ignores tools", fix)
	}
	return ok(part, "calls a tool when asked to (%s)", resp.Message.ToolCalls[0].Function.Name)
}

// imageInput sends a tiny picture, as the bot sends photos (VISION).
func (d *doctor) imageInput(ctx context.Context, client *llm.Client, m app.ModelSetting) Line {
	part := "model " + m.Name + " images"
	req := d.request(m, 8, "")
	req.Messages[1].Parts = []llm.Part{{Type: "text", Text: "What colour is this square? One word."},
		{Type: "image_url", ImageURL: &llm.ImageURL{URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(tinyPNG())}}}
	callCtx, cancel := d.call(ctx)
	defer cancel()
	_, err := client.Complete(callCtx, req, nil)
	switch {
	case err == nil:
		return ok(part, "takes an image (photos are shown to it)")
	case d.cfg.Agent.Vision == agent.VisionOn:
		return failed(part, "an image was refused: "+err.Error(), "set VISION=auto (photos become a note for a model that cannot see) or use a model that sees images")
	}
	return unset(part, "an image was refused; with VISION=auto the bot learns that and gives the model a note instead (%s)", err.Error())
}

// hasModel tells whether a server's list names model (Gemini's names
// its models "models/NAME").
func hasModel(listed []string, model string) bool {
	return slices.ContainsFunc(listed, func(id string) bool { return id == model || strings.TrimPrefix(id, "models/") == model })
}

// tinyPNG is an 8×8 blue square.
func tinyPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := range 8 {
		for y := range 8 {
			img.Set(x, y, color.RGBA{B: 255, A: 255})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // to memory: cannot fail
	return buf.Bytes()
}

// closest is the server's models, those whose names begin most like name
// first (a typo's model comes first), then by name.
func closest(listed []string, name string) []string {
	shared := func(id string) int {
		n := 0
		for n < len(id) && n < len(name) && id[n] == name[n] {
			n++
		}
		return n
	}
	sorted := slices.Clone(listed)
	slices.SortStableFunc(sorted, func(a, b string) int {
		if d := shared(b) - shared(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return sorted
}
