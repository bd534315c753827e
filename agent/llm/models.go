package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxModelsBody bounds the answer of GET /models: OpenRouter lists some
// hundreds of models with long descriptions.
const maxModelsBody = 8 << 20

// ErrNoModelList is a server that lists no models (GET /models is not
// served): its models are known only by calling them.
var ErrNoModelList = errors.New("the server does not list its models")

// Models asks {BaseURL}/models for the models the server has, by id.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	ids, err := c.models(ctx)
	if err != nil {
		return nil, c.redacted(err)
	}
	return ids, nil
}

func (c *Client) models(ctx context.Context) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.BaseURL, "/")+"/models", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(&limitedReader{r: resp.Body, left: maxModelsBody})
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return nil, ErrNoModelList
	case resp.StatusCode/100 != 2:
		return nil, &APIError{Status: resp.StatusCode, Message: errorMessage(data)}
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &list); err != nil || list.Data == nil {
		return nil, fmt.Errorf("%w (GET /models answered what is not a list of models)", ErrNoModelList)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}
