#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
printf '\n## License\n\nReleased under the MIT License.\n' >> README.md
