from gridscope.cli import main

main()
