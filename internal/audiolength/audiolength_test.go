package audiolength

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"testing"

	"github.com/membot/membot/internal/testing/telegramfake"
)

// near tells whether got is want within a hundredth of a second.
func near(got, want float64) bool { return math.Abs(got-want) < 0.01 }

// testdata/tone-3s.opus is opusenc's encoding of three seconds of a tone
// (sox -n -r 48000 tone.wav synth 3 sine 440; opusenc --bitrate 16).
func TestAnOpusFileIsReadToItsLength(t *testing.T) {
	data, err := os.ReadFile("testdata/tone-3s.opus")
	if err != nil {
		t.Fatal(err)
	}
	if s, read := Seconds(data); !read || !near(s, 3) {
		t.Fatalf("Seconds = %v, %v; want 3 s, read", s, read)
	}
	// Cut mid-page, the pages before the cut stand: shorter, still read.
	if s, read := Seconds(data[:len(data)/2]); !read || s <= 0 || s >= 3 {
		t.Errorf("half the file: Seconds = %v, %v; want between 0 and 3 s, read", s, read)
	}
}

// A stream whose granule says one second but that carries ten seconds'
// worth of bytes at the highest bitrate counts ten seconds; a granule of
// ages counts a day.
func TestALyingGranuleCountsNoLessThanTheBytesLast(t *testing.T) {
	if s, read := Seconds(telegramfake.OggOpus(1, 10*MaxBytesPerSecond)); !read || s < 10 {
		t.Fatalf("Seconds = %v, %v; want at least 10 s, read", s, read)
	}
	if s, read := Seconds(telegramfake.OggOpus(30, 20000)); !read || !near(s, 30) {
		t.Fatalf("Seconds = %v, %v; want 30 s, read", s, read)
	}
	if s, _ := Seconds(telegramfake.OggOpus(1e12, 100)); s != MaxSeconds {
		t.Errorf("a huge granule: Seconds = %v, want %d", s, MaxSeconds)
	}
}

func TestAWavFileIsReadToItsLength(t *testing.T) {
	const rate, seconds = 8000, 2
	pcm := make([]byte, rate*2*seconds)
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+len(pcm)))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(rate * 2), uint16(2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(len(pcm)))
	b.Write(pcm)
	if s, read := Seconds(b.Bytes()); !read || !near(s, seconds) {
		t.Fatalf("Seconds = %v, %v; want %d s, read", s, read, seconds)
	}
}

// mp4 is an MP4 file's ftyp, a media data box, and a moov with an mvhd of
// version 0 saying duration over scale.
func mp4(scale, duration uint32, mdat int) []byte {
	box := func(typ string, body []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
		return append(append(out, typ...), body...)
	}
	mvhd := make([]byte, 100)
	binary.BigEndian.PutUint32(mvhd[12:], scale)
	binary.BigEndian.PutUint32(mvhd[16:], duration)
	out := box("ftyp", []byte("isom\x00\x00\x02\x00isomiso2mp41"))
	out = append(out, box("mdat", make([]byte, mdat))...)
	return append(out, box("moov", box("mvhd", mvhd))...)
}

func TestAnMP4FileIsReadToItsLength(t *testing.T) {
	if s, read := Seconds(mp4(1000, 12500, 4000)); !read || !near(s, 12.5) {
		t.Fatalf("Seconds = %v, %v; want 12.5 s, read", s, read)
	}
}

// What cannot be read is estimated from its size at a low bitrate, and so
// is a container that says nothing of its length.
func TestAnUnknownRecordingIsEstimatedFromItsBytes(t *testing.T) {
	for name, data := range map[string][]byte{
		"text":          bytes.Repeat([]byte("hello "), 2000),
		"opus, no page": []byte("OggS"),
		"mp4, no moov":  mp4(1000, 12500, 4000)[:4000],
		"mp4, scale 0":  mp4(0, 12500, 12000),
	} {
		want := float64(len(data)) / EstimateBytesPerSecond
		if s, read := Seconds(data); read || !near(s, want) {
			t.Errorf("%s: Seconds = %v, %v; want %v, estimated", name, s, read, want)
		}
	}
}
