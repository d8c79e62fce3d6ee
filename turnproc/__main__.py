from turnproc.cli import main

raise SystemExit(main())
