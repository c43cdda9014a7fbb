#include "cli/cli.hpp"

int main(int argc, char** argv) { return dtriage::cli::run(argc, argv); }
