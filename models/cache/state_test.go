package cache

import (
	"testing"

	"github.com/tailbound/tailbound/models/instance"
)

func TestStateRules(t *testing.T) {
	if _, err := New(instance.Params{Capacity: 100, BlockSize: 16}); err == nil {
		t.Error("capacity 100 with 16-token blocks accepted")
	}
	s, err := New(instance.Params{Capacity: 64, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	h, x := s.Begin(0, 30, 10) // history 40 tokens: at most 32 cached
	if h != 0 || x != 0 {
		t.Fatalf("first turn: H=%d x=%d", h, x)
	}
	if err := s.Set(0, 48); err == nil {
		t.Error("kept 48 tokens of a 40-token history")
	}
	if err := s.Set(0, 20); err == nil {
		t.Error("kept 20 tokens with 16-token blocks")
	}
	if err := s.Set(0, 32); err != nil {
		t.Fatal(err)
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	s.Begin(1, 100, 0)
	if err := s.Set(0, 48); err == nil {
		t.Error("conversation 0 grew between its turns")
	}
	if err := s.Set(1, 64); err != nil {
		t.Fatal(err)
	}
	if err := s.End(); err == nil {
		t.Error("96 tokens cached in a 64-token cache passed End")
	}
	f, _ := New(instance.Params{Capacity: 64, BlockSize: 16, Forced: true})
	f.Begin(0, 40, 0)
	if err := f.Set(0, 16); err == nil {
		t.Error("forced caching let the served conversation keep 16 of 32 tokens")
	}
}
