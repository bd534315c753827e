package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/images"
	"github.com/membot/membot/internal/visible"
)

// Painter draws a picture and sends it to the chat (*images.Painter).
type Painter interface {
	On() bool
	Paint(ctx context.Context, req images.Request) (*images.Picture, error)
}

const generateImageName = "generate_image"

// maxPicturesPerTurn bounds the pictures of one turn: each is paid for,
// and a model (or a page it read) asking for a dozen would flood the chat.
const maxPicturesPerTurn = 3

// newGenerateImage draws a picture (IMAGE_MODEL) and sends it to the chat
// as a photo; the model gets a line that says it was sent. The turn's
// answer row names the photo (metadata "media" and "images"). After
// outside text it asks first: a page must not spend the user's tokens.
func newGenerateImage(env Env) agent.Tool {
	return agent.Tool{
		Name: generateImageName,
		Description: "Draws a picture from a text description and sends it to the chat as a photo. Use it when the user asks " +
			"for a picture, drawing, illustration or image. Describe the picture fully in the prompt (subject, style, " +
			fmt.Sprintf("composition, colours), in English for best results; at most %d characters. The picture reaches the user ", images.MaxPromptRunes) +
			fmt.Sprintf("by itself: afterwards just say a short word about it. At most %d pictures per answer.", maxPicturesPerTurn),
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"prompt": map[string]any{"type": "string", "description": "what to draw"},
			},
			"required": []string{"prompt"},
		},
		ConfirmAfterOutside: true,
		Describe: func(raw json.RawMessage) (string, error) {
			prompt, err := imagePrompt(raw)
			if err != nil {
				return "", err
			}
			return "Draw a picture of: " + visible.Escaped(prompt), nil
		},
		Run: func(ctx context.Context, turn *agent.TurnInfo, raw json.RawMessage) (string, error) {
			prompt, err := imagePrompt(raw)
			if err != nil {
				return "", err
			}
			if turn.SentCount("images") >= maxPicturesPerTurn {
				return "", fmt.Errorf("at most %d pictures in one answer; tell the user to ask again for more", maxPicturesPerTurn)
			}
			pic, err := env.Images.Paint(ctx, images.Request{UserID: turn.UserID, Chat: turn.Chat, ConversationID: turn.ConversationID,
				UpdateID: turn.UpdateID, Prompt: prompt, PerUpdate: maxPicturesPerTurn})
			switch {
			case errors.Is(err, images.ErrOverBudget):
				return "", errors.New("the user's tokens left today do not cover a picture (DAILY_TOKEN_LIMIT); " +
					"tell them it is possible again tomorrow")
			case errors.Is(err, images.ErrDrawnBefore):
				return "", fmt.Errorf("the %d pictures this message may have were drawn already, some before the bot restarted "+
					"(they may be in the chat above); tell the user to ask again for more", maxPicturesPerTurn)
			case err != nil:
				return "", err
			}
			turn.Sent("media", pic.Media())
			turn.Sent("images", pic.Drawn())
			return "The picture was drawn and sent to the chat as a photo. Do not describe it at length or send a link; the user sees it.", nil
		},
	}
}

// imagePrompt is the prompt of generate_image's arguments, checked.
func imagePrompt(raw json.RawMessage) (string, error) {
	var args struct {
		Prompt string `json:"prompt"`
	}
	if err := agent.DecodeArgs(raw, &args); err != nil {
		return "", err
	}
	return images.CheckPrompt(args.Prompt)
}
