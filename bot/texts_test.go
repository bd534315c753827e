package bot

import "testing"

func TestEveryTextExistsInBothLanguages(t *testing.T) {
	for key := range texts["en"] {
		if texts["ru"][key] == "" {
			t.Errorf("text %q has no Russian version", key)
		}
	}
	for key := range texts["ru"] {
		if texts["en"][key] == "" {
			t.Errorf("text %q has no English version", key)
		}
	}
	if T("ru-RU", txtNew) != texts["ru"][txtNew] || T("de", txtNew) != texts["en"][txtNew] {
		t.Error("language choice is off")
	}
}
