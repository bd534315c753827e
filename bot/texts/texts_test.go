package texts

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Every text exists in both languages, a text with arguments takes as many
// in both, and each mode and command has a description in both.
func TestEveryTextExistsInBothLanguages(t *testing.T) {
	en, ru := reflect.ValueOf(english), reflect.ValueOf(russian)
	for i := range en.NumField() {
		name := en.Type().Field(i).Name
		e, r := en.Field(i), ru.Field(i)
		switch e.Kind() {
		case reflect.String:
			if e.String() == "" || r.String() == "" {
				t.Errorf("text %s is empty in a language (en %q, ru %q)", name, e.String(), r.String())
			}
		case reflect.Func:
			if e.IsNil() || r.IsNil() {
				t.Errorf("text %s is missing in a language", name)
			}
		case reflect.Map:
			for _, k := range e.MapKeys() {
				if r.MapIndex(k).String() == "" {
					t.Errorf("%s[%s] has no Russian version", name, k)
				}
			}
			if e.Len() != r.Len() {
				t.Errorf("%s: %d English, %d Russian", name, e.Len(), r.Len())
			}
		}
	}
	if For("ru-RU") != &russian || For("ru") != &russian || For("de") != &english || For("") != &english {
		t.Error("language choice is off")
	}
}

// anyVerb prints itself for any formatting verb, so a text can be called
// with it whatever its format asks for.
type anyVerb struct{}

func (anyVerb) Format(f fmt.State, _ rune) { fmt.Fprint(f, "ARG") }

// A text's arguments all show up: none is "%!d(MISSING)" or "%!(EXTRA ...)".
func TestTextsUseEveryArgument(t *testing.T) {
	for _, lang := range []Texts{english, russian} {
		v := reflect.ValueOf(lang)
		for i := range v.NumField() {
			f := v.Field(i)
			if f.Kind() != reflect.Func {
				continue
			}
			args := make([]reflect.Value, f.Type().NumIn())
			for j := range args {
				args[j] = reflect.ValueOf(anyVerb{})
			}
			out := f.Call(args)[0].String()
			if strings.Contains(out, "%!") || strings.Count(out, "ARG") != len(args) {
				t.Errorf("%s: %q", v.Type().Field(i).Name, out)
			}
		}
	}
}
