package agent

import "math"

// What the paid calls that are not a chat model's text cost against
// DAILY_TOKEN_LIMIT. The limit sums the tokens of llm_calls; a call that
// is billed by something else is written there in tokens by this one
// conversion (README and docs/SECURITY.md say the same). The weights
// follow OpenAI's list prices against a large chat model's input tokens
// (gpt-4o, $2.50 a million): transcription (whisper-1, $0.006 a minute)
// is 40 tokens a second of the recording as downloaded; speech (tts-1,
// $15 a million characters) 6,000 tokens per 1,000 characters said; an
// image request.TokensPerImage.
const (
	TokensPerAudioSecond     = 40
	TokensPer1000SpeechChars = 6000
)

// AudioTokens is what seconds of a recording count, rounded up.
func AudioTokens(seconds float64) int {
	return int(math.Ceil(max(seconds, 0) * TokensPerAudioSecond))
}

// speechTokens is what saying chars characters counts, rounded up.
func speechTokens(chars int) int {
	return (chars*TokensPer1000SpeechChars + 999) / 1000
}
