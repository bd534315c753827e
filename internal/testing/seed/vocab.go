package seed

import (
	"math/rand/v2"
	"strings"
)

// Real words for the most frequent content ranks: a stemming
// full-text search meets the same word in several forms, as it does in
// real chats ("поездка", "поездки", "поездку"; "trip", "trips"). Rarer
// ranks stay spelled from syllables (names, typos, rare words).

type inflected struct {
	stems   []string
	endings []string // the forms are stem+ending
}

var englishWords = inflected{
	stems: strings.Fields(`work trip travel flight ticket hotel doctor clinic dog cat puppy car bike train bus
flat house home city street river lake park garden kitchen dinner lunch breakfast coffee tea soup pasta
book film song game phone laptop email meeting office project deadline report salary bank shop market
friend sister brother mother father wife husband child school teacher lesson course exam holiday weekend
birthday party present gift weather rain snow summer winter morning evening night plan idea question answer
problem reason price bill rent walk run swim gym match team player visit call message photo picture`),
	endings: []string{"", "", "", "s", "s", "ed", "ing", "er"},
}

var russianWords = inflected{
	stems: strings.Fields(`работ поездк путешестви билет гостиниц врач клиник собак кошк машин велосипед поезд
автобус квартир улиц рек озер парк сад кухн обед ужин завтрак книг фильм песн игр телефон ноутбук письм
встреч офис проект отчет зарплат банк магазин рынк подруг сестр мам школ учительниц урок экзамен недел
праздник погод зим весн дорог комнат минут помощ истори мысл вещ страниц картин фотографи прогулк
пробежк команд победк новост цен покупк посылк лодк дач баб`),
	endings: []string{"а", "ы", "е", "у", "ой", "ами", "ах", "ам"},
}

// realWord is the content word of rank when the language has a real one
// for it, in a form drawn with rng; "" otherwise.
func (l *language) realWord(rank int, rng *rand.Rand) string {
	if l.real == nil || rank >= len(l.real.stems) {
		return ""
	}
	return l.real.stems[rank] + l.real.endings[rng.IntN(len(l.real.endings))]
}
