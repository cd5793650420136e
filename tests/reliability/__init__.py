"""Reliability tests: real clients against the fake servers, faults, resume, bad output, bad data, secrets."""
