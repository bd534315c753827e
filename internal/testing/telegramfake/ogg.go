package telegramfake

import (
	"bytes"
	"encoding/binary"
)

// OggOpus is a voice message's file as Telegram's clients record it, an
// OGG/Opus stream (RFC 7845), whose last granule position says it lasts
// seconds and whose pages add up to at least size bytes: an OpusHead page,
// then pages of filler packets, the last one carrying the end's granule.
// No decoder would play the packets; everything that tells a recording's
// length is as a real file has it (the checksums are left zero).
func OggOpus(seconds float64, size int) []byte {
	const serial = 0x6d656d62
	head := append([]byte("OpusHead\x01\x01"), 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0) // pre-skip 312, 48 kHz
	out := oggPage(0, serial, 0x02, head)
	out = append(out, oggPage(0, serial, 0, []byte("OpusTags\x00\x00\x00\x00\x00\x00\x00\x00"))...)
	end := int64(seconds*48000) + 312
	for {
		body := bytes.Repeat([]byte{0xfc}, max(min(size-len(out)-40, 60000), 1))
		last := len(out)+27+len(body)/255+1+len(body) >= size
		granule, flags := int64(-1), byte(0)
		if last {
			granule, flags = end, 0x04
		}
		out = append(out, oggPage(granule, serial, flags, body)...)
		if last {
			return out
		}
	}
}

// oggPage is one OGG page holding body as one packet.
func oggPage(granule int64, serial uint32, flags byte, body []byte) []byte {
	var lacing []byte
	n := len(body)
	for ; n >= 255; n -= 255 {
		lacing = append(lacing, 255)
	}
	lacing = append(lacing, byte(n))
	h := make([]byte, 27, 27+len(lacing)+len(body))
	copy(h, "OggS")
	h[5] = flags
	binary.LittleEndian.PutUint64(h[6:], uint64(granule))
	binary.LittleEndian.PutUint32(h[14:], serial)
	h[26] = byte(len(lacing))
	return append(append(h, lacing...), body...)
}
