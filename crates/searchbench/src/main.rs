fn main() {
    std::process::exit(searchbench::cli::main());
}
