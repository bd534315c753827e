package openaifake

import (
	"fmt"
	"strings"
)

// Dialect is how one kind of OpenAI-compatible server behaves where
// servers differ, reproduced from their sources and documentation. The
// zero Dialect is OpenAI's chat completions API.
type Dialect struct {
	Name string
	// StrictRoles refuses requests CheckRoles refuses, as chat templates
	// that raise "Conversation roles must alternate" do.
	StrictRoles bool
	// Refusals of parts of a request: nil accepts them.
	ToolsRefused           *Refusal // a request with tools
	StreamWithToolsRefused *Refusal // a streamed request with tools
	StreamOptionsRefused   *Refusal // stream_options
	MaxTokensRefused       *Refusal // max_tokens (OpenAI's reasoning models)
	ReasoningBackRefused   *Refusal // reasoning_content in a message (DeepSeek R1)
	ImagesRefused          *Refusal // an image part in a message (a text-only model)
	// Reasoning is how a reply's Reasoning is given: "tags" (<think>…</think>
	// before the content), "close-tag" (the template opened <think>; only
	// the closing tag is in the content), "reasoning_content", "reasoning",
	// or "" (not given).
	Reasoning string
	// NeedsReasoningBack refuses an assistant message with tool calls after
	// the last user message that lacks its reasoning_content (DeepSeek's
	// thinking mode with tools).
	NeedsReasoningBack bool
	// ThoughtSignatures gives every tool call an
	// extra_content.google.thought_signature and refuses a request whose
	// tool calls of the current turn come back without it (Gemini 3).
	ThoughtSignatures bool
	// Usage in streams: "options" (when stream_options asks), "always",
	// "never", or "x_groq" (in the last chunk's x_groq.usage).
	StreamUsage string
	// ToolCallsWhole streams each tool call whole in one chunk, without an
	// index (Ollama, Gemini).
	ToolCallsWhole bool
	// ToolCallFinish is the finish reason of an answer with tool calls:
	// "tool_calls" when empty (old Ollama says "stop").
	ToolCallFinish string
	// Comments sends ": OPENROUTER PROCESSING" lines before the answer.
	Comments bool
	// ErrorsInStream answers a scripted server failure of a streamed
	// request with a 200 stream that carries the error in a chunk with
	// finish_reason "error", after some of the content (OpenRouter).
	ErrorsInStream bool
}

// Refusal is an error answer: a status and a body as the server writes it.
type Refusal struct {
	Status int
	Body   string
}

func openAIError(status int, msg, typ string) *Refusal {
	return &Refusal{Status: status, Body: fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":null}}`, msg, typ)}
}

// rolesRefusal is the refusal of a strict chat template.
var rolesRefusal = openAIError(400, "Conversation roles must alternate user/assistant/user/assistant/...", "BadRequestError")

// Dialects are the servers membot is tested against.
var Dialects = []Dialect{
	{Name: "openai"},
	{Name: "openai-reasoning", MaxTokensRefused: openAIError(400,
		"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "invalid_request_error")},
	{Name: "ollama-old", ToolsRefused: openAIError(400, "registry.ollama.ai/library/gemma:2b does not support tools", "api_error"),
		ImagesRefused: openAIError(500, "this model is missing data required for image input", "api_error"),
		Reasoning:     "tags", StreamUsage: "never", ToolCallsWhole: true, ToolCallFinish: "stop"},
	{Name: "ollama", Reasoning: "reasoning", ToolCallsWhole: true},
	{Name: "vllm", StrictRoles: true, Reasoning: "tags", ImagesRefused: openAIError(400,
		"Qwen/Qwen3-8B is not a multimodal model", "BadRequestError"), ToolsRefused: openAIError(400,
		`"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`, "BadRequestError")},
	{Name: "vllm-parsers", StrictRoles: true, Reasoning: "reasoning_content", StreamUsage: "options"},
	{Name: "vllm-r1-template", StrictRoles: true, Reasoning: "close-tag"},
	{Name: "llamacpp-old", StrictRoles: true, StreamWithToolsRefused: &Refusal{Status: 500,
		Body: `{"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}`}, StreamUsage: "never"},
	{Name: "llamacpp-nojinja", StrictRoles: true, ToolsRefused: &Refusal{Status: 500,
		Body: `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`}},
	{Name: "llamacpp", StrictRoles: true, Reasoning: "reasoning_content", StreamUsage: "always"},
	{Name: "lmstudio", StrictRoles: true, Reasoning: "tags", StreamUsage: "always"},
	{Name: "openrouter", Reasoning: "reasoning", Comments: true, ErrorsInStream: true, StreamUsage: "always"},
	{Name: "deepseek", StrictRoles: true, Reasoning: "reasoning_content", NeedsReasoningBack: true},
	{Name: "deepseek-r1", StrictRoles: true, Reasoning: "reasoning_content",
		ToolsRefused:         openAIError(400, "deepseek-reasoner does not support Function Calling", "invalid_request_error"),
		ReasoningBackRefused: openAIError(400, "The reasoning_content is an intermediate result for display purposes only and will not be included in the context for inference. Please remove the reasoning_content from your message to reduce network traffic.", "invalid_request_error")},
	{Name: "groq", StreamOptionsRefused: openAIError(400, "property 'stream_options' is unsupported", "invalid_request_error"),
		StreamUsage: "x_groq"},
	{Name: "mistral", StrictRoles: true, StreamOptionsRefused: &Refusal{Status: 422,
		Body: `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]},"type":"invalid_request_error","param":null,"code":null}`},
		StreamUsage: "always"},
	{Name: "gemini-2", ToolCallsWhole: true, StreamUsage: "always", StreamOptionsRefused: &Refusal{Status: 400,
		Body: `[{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"stream_options\": Cannot find field.","status":"INVALID_ARGUMENT"}}]`}},
	{Name: "gemini-3", ToolCallsWhole: true, StreamUsage: "always", ThoughtSignatures: true, Reasoning: "tags"},
}

// DialectNamed returns the dialect of that name.
func DialectNamed(name string) Dialect {
	for _, d := range Dialects {
		if d.Name == name {
			return d
		}
	}
	panic("openaifake: no dialect " + name)
}

// refuse returns the refusal the dialect gives req, or nil.
func (d Dialect) refuse(req wireRequest) *Refusal {
	switch {
	case d.StreamOptionsRefused != nil && req.StreamOptions != nil:
		return d.StreamOptionsRefused
	case d.ToolsRefused != nil && len(req.Tools) > 0:
		return d.ToolsRefused
	case d.StreamWithToolsRefused != nil && req.Stream && len(req.Tools) > 0:
		return d.StreamWithToolsRefused
	case d.MaxTokensRefused != nil && req.MaxTokens > 0:
		return d.MaxTokensRefused
	}
	lastUser := -1
	for i, m := range req.Messages {
		if m.Role == "user" {
			lastUser = i
		}
		if d.ImagesRefused != nil && len(m.Content) > 0 && m.Content[0] == '[' && strings.Contains(string(m.Content), `"image_url"`) {
			return d.ImagesRefused
		}
	}
	for i, m := range req.Messages {
		if m.ReasoningContent != "" && d.ReasoningBackRefused != nil {
			return d.ReasoningBackRefused
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 || i < lastUser {
			continue
		}
		if d.NeedsReasoningBack && m.ReasoningContent == "" {
			return openAIError(400, fmt.Sprintf("Missing `reasoning_content` field in the assistant message at message index %d", i), "invalid_request_error")
		}
		for _, c := range m.ToolCalls {
			if d.ThoughtSignatures && c.signature() != signatureOf(c.ID) {
				return &Refusal{Status: 400, Body: fmt.Sprintf(`[{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly (message %d).","status":"INVALID_ARGUMENT"}}]`, i)}
			}
		}
	}
	return nil
}

// signatureOf is the thought signature the fake gives a call.
func signatureOf(callID string) string {
	return "sig-" + strings.ToUpper(callID)
}
