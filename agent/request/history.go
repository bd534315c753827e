package request

import (
	"slices"

	"github.com/membot/membot/memory"
)

// ValidWindow makes the window valid for the OpenAI API, which wants every
// assistant row that calls tools followed at once by one result per call.
// Each such row is matched with the first result of each of its calls that
// comes after it, and the row with its results is placed where its last
// result is: a call that waited for approval while the chat went on reads
// as made when it was decided. Dropped: tool results whose assistant row
// fell outside the window, and assistant rows some of whose results are
// missing (a turn cut short by a crash, or a call still awaiting approval).
// Everything else is kept, in order.
func ValidWindow(rows []memory.Message) []memory.Message {
	claimed := map[int]bool{}  // result rows matched to an assistant row
	results := map[int][]int{} // assistant row -> its result rows, in call order
	placeAt := map[int]int{}   // last result row -> its assistant row
	for i, row := range rows {
		if row.Role != memory.RoleAssistant || len(row.ToolCalls) == 0 {
			continue
		}
		found := make([]int, 0, len(row.ToolCalls))
		for _, c := range row.ToolCalls {
			for j := i + 1; j < len(rows); j++ {
				if rows[j].Role == memory.RoleTool && rows[j].ToolCallID == c.ID && !claimed[j] {
					found = append(found, j)
					claimed[j] = true
					break
				}
			}
		}
		if len(found) < len(row.ToolCalls) { // incomplete: its results stay unmatched
			for _, j := range found {
				delete(claimed, j)
			}
			continue
		}
		results[i] = found
		placeAt[slices.Max(found)] = i
	}
	out := make([]memory.Message, 0, len(rows))
	for i, row := range rows {
		switch {
		case row.Role == memory.RoleTool:
			if asker, ok := placeAt[i]; ok {
				out = append(out, rows[asker])
				for _, j := range results[asker] {
					out = append(out, rows[j])
				}
			}
		case row.Role == memory.RoleAssistant && len(row.ToolCalls) > 0:
			// placed with its last result
		default:
			out = append(out, row)
		}
	}
	return out
}
