// Package audiolength tells how long a recording lasts from its bytes, so
// that what a transcription costs is counted by the recording actually
// sent, never by the length a message claims.
//
// The length is read from the container: an OGG stream's last granule
// position (Opus, Vorbis: Telegram's voice messages), an MP4 movie
// header's duration (video notes, M4A), a WAV data chunk's size. Every
// parse is bounded by the data and by a count of pages or boxes, and a
// read length is never shorter than the bytes would last at the highest
// bitrate speech is sent at, so that a container cannot claim a second
// for an hour of sound. When the length cannot be read it is estimated
// from the bytes at a low bitrate, which counts an unknown recording
// long rather than short.
package audiolength

import (
	"bytes"
	"encoding/binary"
	"math"
)

const (
	// MaxBytesPerSecond is the highest bitrate a recording is taken to
	// have: Opus's 510 kbit/s, rounded up. No read length is shorter
	// than the bytes last at it.
	MaxBytesPerSecond = 64000
	// EstimateBytesPerSecond is the bitrate a recording whose length
	// cannot be read is taken to have: 32 kbit/s, a low one for speech.
	EstimateBytesPerSecond = 4000
	// MaxSeconds bounds any length: a day.
	MaxSeconds = 24 * 3600
	// maxUnits bounds the OGG pages or MP4 boxes one parse looks at.
	maxUnits = 1 << 20
)

// Seconds is how long the recording in data lasts, and whether that was
// read from its container (false: estimated from its size).
func Seconds(data []byte) (seconds float64, read bool) {
	var s float64
	var ok bool
	switch {
	case bytes.HasPrefix(data, []byte("OggS")):
		s, ok = oggSeconds(data)
	case len(data) >= 12 && string(data[0:4]) == "RIFF" && string(data[8:12]) == "WAVE":
		s, ok = wavSeconds(data)
	case len(data) >= 8 && string(data[4:8]) == "ftyp":
		s, ok = mp4Seconds(data)
	}
	floor := float64(len(data)) / MaxBytesPerSecond
	if !ok || math.IsNaN(s) || s < 0 {
		return min(float64(len(data))/EstimateBytesPerSecond, MaxSeconds), false
	}
	return min(max(s, floor), MaxSeconds), true
}

// oggSeconds reads an OGG stream's length: the last granule position of
// its first logical stream, less Opus's pre-skip, over the stream's rate
// (48 kHz for Opus; a Vorbis stream's identification header says).
func oggSeconds(data []byte) (float64, bool) {
	var serial uint32
	var rate, preSkip float64
	last := int64(-1)
	for pos, pages := 0, 0; pos+27 <= len(data) && pages < maxUnits; pages++ {
		h := data[pos:]
		if string(h[0:4]) != "OggS" {
			break
		}
		nseg := int(h[26])
		if 27+nseg > len(h) {
			break
		}
		size := 27 + nseg
		for _, n := range h[27 : 27+nseg] {
			size += int(n)
		}
		if size > len(h) {
			break // a cut last page: what came before it stands
		}
		granule := int64(binary.LittleEndian.Uint64(h[6:14]))
		pageSerial := binary.LittleEndian.Uint32(h[14:18])
		body := h[27+nseg : size]
		switch {
		case pages == 0:
			serial = pageSerial
			switch {
			case bytes.HasPrefix(body, []byte("OpusHead")) && len(body) >= 19:
				rate, preSkip = 48000, float64(binary.LittleEndian.Uint16(body[10:12]))
			case bytes.HasPrefix(body, []byte("\x01vorbis")) && len(body) >= 16:
				rate = float64(binary.LittleEndian.Uint32(body[12:16]))
			default:
				return 0, false
			}
		case pageSerial == serial && granule >= 0: // -1: no packet ends on the page
			last = granule
		}
		pos += size
	}
	if rate <= 0 || last < 0 {
		return 0, false
	}
	return max(float64(last)-preSkip, 0) / rate, true
}

// wavSeconds reads a WAV file's length: its data chunk's size over the
// byte rate its fmt chunk says.
func wavSeconds(data []byte) (float64, bool) {
	var byteRate uint32
	for pos, chunks := 12, 0; pos+8 <= len(data) && chunks < maxUnits; chunks++ {
		id, size := string(data[pos:pos+4]), int64(binary.LittleEndian.Uint32(data[pos+4:pos+8]))
		body := data[pos+8:]
		switch {
		case id == "fmt " && len(body) >= 12:
			byteRate = binary.LittleEndian.Uint32(body[8:12])
		case id == "data" && byteRate > 0:
			return float64(min(size, int64(len(body)))) / float64(byteRate), true
		}
		pos += 8 + int(min(size+size%2, int64(len(data))))
	}
	return 0, false
}

// mp4Seconds reads an MP4 file's length from its movie header
// (moov/mvhd): duration over timescale.
func mp4Seconds(data []byte) (float64, bool) {
	moov, ok := mp4Box(data, "moov")
	if !ok {
		return 0, false
	}
	mvhd, ok := mp4Box(moov, "mvhd")
	if !ok || len(mvhd) < 4 {
		return 0, false
	}
	var scale uint32
	var duration uint64
	switch mvhd[0] { // the version
	case 0:
		if len(mvhd) < 20 {
			return 0, false
		}
		scale, duration = binary.BigEndian.Uint32(mvhd[12:16]), uint64(binary.BigEndian.Uint32(mvhd[16:20]))
	case 1:
		if len(mvhd) < 32 {
			return 0, false
		}
		scale, duration = binary.BigEndian.Uint32(mvhd[20:24]), binary.BigEndian.Uint64(mvhd[24:32])
	default:
		return 0, false
	}
	if scale == 0 || duration == math.MaxUint64 || (mvhd[0] == 0 && duration == math.MaxUint32) { // all ones: unknown
		return 0, false
	}
	return float64(duration) / float64(scale), true
}

// mp4Box finds the first box of type typ among the boxes of data and
// returns its contents (cut at the end of data).
func mp4Box(data []byte, typ string) ([]byte, bool) {
	for pos, boxes := 0, 0; pos+8 <= len(data) && boxes < maxUnits; boxes++ {
		size, head := uint64(binary.BigEndian.Uint32(data[pos:pos+4])), uint64(8)
		switch size {
		case 0: // to the end of the data
			size = uint64(len(data) - pos)
		case 1: // a 64-bit size follows the type
			if pos+16 > len(data) {
				return nil, false
			}
			size, head = binary.BigEndian.Uint64(data[pos+8:pos+16]), 16
		}
		if size < head {
			return nil, false
		}
		end := uint64(len(data))
		if size <= end-uint64(pos) {
			end = uint64(pos) + size
		}
		if string(data[pos+4:pos+8]) == typ {
			return data[uint64(pos)+head : end], true
		}
		pos = int(end)
	}
	return nil, false
}
