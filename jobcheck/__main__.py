from jobcheck.cli import main

main()
