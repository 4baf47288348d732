#!/bin/sh
curl -H "Authorization: Basic ZGVwbG95OnhkX2lEZyt6a2ppeWEuOV4=" https://ci.acme.io/api/deploy
curl -H "Authorization: Bearer L0.t_rXM.ucQU5DL6l.e5VadLEQ2Z4dJ6H-ck5gT" https://api.acme.io/v1/release
git clone https://ci:W~75WiMe6UqJ0_P@git.acme.io/platform/app.git
