package telegramfake

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Files the bot may download, as the Bot API serves them
// (core.telegram.org/bots/api#getfile): getFile returns a File object
// whose file_path is then fetched from {API}/file/bot<token>/<file_path>.
// Files over 20 MB get getFile's refusal, as from Telegram.

// MaxDownloadBytes is the largest file Telegram lets a bot download.
const MaxDownloadBytes = 20 << 20

// DownloadMethod is the Call.Method recorded for a fetch of a file's bytes;
// its Params["file_path"] says which.
const DownloadMethod = "download"

// FileRef names a file a test registered: the ids an update carries.
type FileRef struct {
	FileID       string
	FileUniqueID string
	Size         int64
	Path         string
}

type storedFile struct {
	ref  FileRef
	data []byte
}

// AddFile registers data as a file the bot may download and returns its
// ids; name ends its file_path (e.g. "voice/file_3.oga").
func (s *Server) AddFile(name string, data []byte) FileRef {
	return s.addFile(name, data, int64(len(data)))
}

// AddFileOfSize registers a file that claims size bytes (for files too big
// to make): getFile reports that size.
func (s *Server) AddFileOfSize(name string, data []byte, size int64) FileRef {
	return s.addFile(name, data, size)
}

func (s *Server) addFile(name string, data []byte, size int64) FileRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]*storedFile{}
	}
	n := strconv.Itoa(len(s.files) + 1)
	ref := FileRef{FileID: "file-id-" + n, FileUniqueID: "uniq-" + n, Size: size, Path: "files/" + n + "/" + name}
	s.files[ref.FileID] = &storedFile{ref: ref, data: data}
	return ref
}

// getFile answers getFile as Telegram does.
func (s *Server) getFile(c Call) (any, *Fault) {
	s.mu.Lock()
	f := s.files[c.Params["file_id"]]
	s.mu.Unlock()
	switch {
	case f == nil:
		return nil, badRequest("Bad Request: invalid file_id")
	case f.ref.Size > MaxDownloadBytes:
		return nil, badRequest("Bad Request: file is too big")
	}
	return map[string]any{"file_id": f.ref.FileID, "file_unique_id": f.ref.FileUniqueID,
		"file_size": f.ref.Size, "file_path": f.ref.Path}, nil
}

// serveFile serves a file's bytes at /file/bot<token>/<file_path>.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, "/file/bot"+s.Token+"/")
	if !ok {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: DownloadMethod, Params: map[string]string{"file_path": path}, At: time.Now()})
	s.changed.Broadcast()
	var data []byte
	found := false
	for _, f := range s.files {
		if f.ref.Path == path {
			data, found = f.data, true
		}
	}
	s.mu.Unlock()
	if !found {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
}

// Media builds a message carrying field (voice, photo, document, ...) with
// value as Telegram sends it, and caption when not "".
func Media(chatID int64, chatType string, from User, field string, value any, caption string) map[string]any {
	m := TextMessage(chatID, chatType, from, "")
	delete(m, "text")
	m[field] = value
	if caption != "" {
		m["caption"] = caption
		if entities := Entities(caption); len(entities) > 0 {
			m["caption_entities"] = entities
		}
	}
	return m
}

// Voice is a Voice object of a registered file.
func Voice(f FileRef, seconds int) map[string]any {
	return map[string]any{"file_id": f.FileID, "file_unique_id": f.FileUniqueID, "duration": seconds,
		"mime_type": "audio/ogg", "file_size": f.Size}
}

// PhotoSizes is a photo's sizes, smallest first, as Telegram lists them:
// one PhotoSize per registered file, with widths 90, 320, 800, ...
func PhotoSizes(files ...FileRef) []map[string]any {
	widths := []int{90, 320, 800, 1280, 2560}
	var sizes []map[string]any
	for i, f := range files {
		w := widths[min(i, len(widths)-1)]
		sizes = append(sizes, map[string]any{"file_id": f.FileID, "file_unique_id": f.FileUniqueID,
			"width": w, "height": w * 3 / 4, "file_size": f.Size})
	}
	return sizes
}

// DocumentOf is a Document object of a registered file.
func DocumentOf(f FileRef, name, mimeType string) map[string]any {
	return map[string]any{"file_id": f.FileID, "file_unique_id": f.FileUniqueID, "file_name": name,
		"mime_type": mimeType, "file_size": f.Size}
}

// SendMedia queues a private message from user carrying field (see Media)
// and returns its update id.
func (s *Server) SendMedia(from User, field string, value any, caption string) int64 {
	return s.AddUpdate("message", Media(from.ID, "private", from, field, value, caption))
}

// Voiced is a voice message the bot sent (sendVoice).
type Voiced struct {
	ChatID    int64
	MessageID int64
	ReplyTo   int64
	Audio     []byte
}

// sendVoice records a voice message: an uploaded OGG/Opus file.
func (s *Server) sendVoice(c Call) (any, *Fault) {
	chatID, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	replyTo, _ := strconv.ParseInt(c.Params["reply_to_message_id"], 10, 64)
	audio := c.Params["voice"]
	if audio == "" {
		return nil, badRequest("Bad Request: there is no voice in the request")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextMsg[chatID]++
	id := 100000 + s.nextMsg[chatID]
	s.voices = append(s.voices, Voiced{ChatID: chatID, MessageID: id, ReplyTo: replyTo, Audio: []byte(audio)})
	s.changed.Broadcast()
	return map[string]any{"message_id": id, "from": s.Bot(), "date": time.Now().Unix(),
		"chat": map[string]any{"id": chatID, "type": chatType(chatID)}, "voice": map[string]any{"file_id": "sent-voice", "duration": 1}}, nil
}

// Voices returns the voice messages the bot sent.
func (s *Server) Voices() []Voiced {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Voiced(nil), s.voices...)
}

// Photo is a photo the bot sent (sendPhoto): an uploaded image, kept as a
// file the bot may download again by its file_id.
type Photo struct {
	ChatID    int64
	MessageID int64
	ReplyTo   int64
	Thread    int64
	Image     []byte
	File      FileRef
}

// sendPhoto records a photo as Telegram takes it: an upload of at most
// 10 MB, answered with the message and its sizes (the fake keeps one).
func (s *Server) sendPhoto(c Call) (any, *Fault) {
	chatID, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	replyTo, _ := strconv.ParseInt(c.Params["reply_to_message_id"], 10, 64)
	thread, _ := strconv.ParseInt(c.Params["message_thread_id"], 10, 64)
	image := c.Params["photo"]
	switch {
	case image == "":
		return nil, badRequest("Bad Request: there is no photo in the request")
	case len(image) > 10<<20:
		return nil, badRequest("Bad Request: PHOTO_INVALID_DIMENSIONS")
	}
	ref := s.AddFile("photo.png", []byte(image))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextMsg[chatID]++
	id := 100000 + s.nextMsg[chatID]
	s.photos = append(s.photos, Photo{ChatID: chatID, MessageID: id, ReplyTo: replyTo, Thread: thread, Image: []byte(image), File: ref})
	s.changed.Broadcast()
	size := map[string]any{"file_id": ref.FileID, "file_unique_id": ref.FileUniqueID, "width": 1024, "height": 1024, "file_size": ref.Size}
	return map[string]any{"message_id": id, "from": s.Bot(), "date": time.Now().Unix(),
		"chat": map[string]any{"id": chatID, "type": chatType(chatID)}, "photo": []any{size}}, nil
}

// Photos returns the photos the bot sent.
func (s *Server) Photos() []Photo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Photo(nil), s.photos...)
}
