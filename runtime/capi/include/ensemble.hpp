// A thin C++ wrapper over ensemble.h: RAII owners for programs, libraries, scenes and inspectors (freed by
// their destructors, movable, not copyable), and ens::Error (the status and message) thrown
// for every failed call. Header-only; compiled by runtime/capi/tests/c_hosts.rs.
//
// Written by hand over the generated ensemble.h; docs/embedding.md ("C++") shows its use.
#ifndef ENSEMBLE_HPP
#define ENSEMBLE_HPP

#include "ensemble.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ens {

// A failed call: its status and ens_last_error_message().
class Error : public std::runtime_error {
public:
    Error(EnsStatus status, const std::string &message) : std::runtime_error(message), status_(status) {}
    EnsStatus status() const { return status_; }

private:
    EnsStatus status_;
};

// Throws Error unless the call succeeded.
inline void check(EnsStatus status) {
    if (status != ENS_STATUS_OK) throw Error(status, ens_last_error_message());
}

// Takes a string the library handed out, freeing it.
inline std::string take_string(char *text) {
    std::string copy = text ? text : "";
    ens_string_free(text);
    return copy;
}

// Owns one handle, freed by Free on destruction; moves, never copies.
template <typename Handle, EnsStatus (*Free)(Handle)>
class Owned {
public:
    Owned() = default;
    explicit Owned(Handle handle) : handle_(handle) {}
    Owned(Owned &&other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
    Owned &operator=(Owned &&other) noexcept {
        if (this != &other) {
            reset();
            handle_ = std::exchange(other.handle_, Handle{});
        }
        return *this;
    }
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    ~Owned() { reset(); }

    Handle get() const { return handle_; }

private:
    void reset() {
        if (handle_.id != 0) Free(handle_); // a destructor does not throw
        handle_ = Handle{};
    }
    Handle handle_{};
};

class Program : public Owned<EnsProgram, ens_program_free> {
public:
    using Owned::Owned;
    static Program load_file(const std::string &path) {
        EnsProgram handle{};
        check(ens_program_load_file(path.c_str(), &handle));
        return Program(handle);
    }
    static Program load_bytes(const std::vector<std::uint8_t> &bytes, const std::string &name) {
        EnsProgram handle{};
        check(ens_program_load_bytes(bytes.data(), bytes.size(), name.c_str(), &handle));
        return Program(handle);
    }
};

class Library : public Owned<EnsLibrary, ens_library_free> {
public:
    using Owned::Owned;
    static Library standard() {
        EnsLibrary handle{};
        check(ens_library_new(&handle));
        return Library(handle);
    }
    // `callbacks.user_data` must outlive every scene using the state.
    void add(const EnsStateDecl &decl, const EnsStateCallbacks &callbacks) {
        check(ens_library_register(get(), &decl, &callbacks));
    }
};

class Scene : public Owned<EnsScene, ens_scene_free> {
public:
    using Owned::Owned;
    static Scene simulated(const Program &program, const std::string &name, std::uint64_t seed) {
        EnsScene handle{};
        check(ens_scene_start_simulated(program.get(), name.c_str(), seed, &handle));
        return Scene(handle);
    }
    // `world.user_data` must outlive the scene.
    static Scene start(const Program &program, const Library &library, const std::string &name,
                       std::uint64_t seed, const EnsWorldCallbacks &world) {
        EnsScene handle{};
        check(ens_scene_start(program.get(), library.get(), name.c_str(), seed, &world, &handle));
        return Scene(handle);
    }
    static Scene restore_simulated(const Program &program, const std::vector<std::uint8_t> &bytes) {
        EnsScene handle{};
        check(ens_scene_restore_simulated(program.get(), bytes.data(), bytes.size(), &handle));
        return Scene(handle);
    }

    void tick() { check(ens_scene_tick(get())); }
    // The events since the last call, as `ensemble run --trace json` prints them.
    std::string take_trace_json() {
        char *lines = nullptr;
        check(ens_scene_take_trace_json(get(), &lines));
        return take_string(lines);
    }
    // Off: the trace is not kept (on by default, from tick 0).
    void set_tracing(bool on) { check(ens_scene_set_tracing(get(), on)); }
    void send(std::uint32_t to, std::uint32_t from, const std::string &name) {
        check(ens_scene_send(get(), to, from, name.c_str()));
    }
    void reload(const Program &program, const std::string &reason) {
        check(ens_scene_reload(get(), program.get(), reason.c_str()));
    }
    std::vector<std::uint8_t> save() {
        std::uint8_t *bytes = nullptr;
        std::size_t len = 0;
        check(ens_scene_save(get(), &bytes, &len));
        std::vector<std::uint8_t> copy(bytes, bytes + len);
        ens_bytes_free(bytes, len);
        return copy;
    }
    std::uint32_t agent_count() {
        std::uint32_t count = 0;
        check(ens_scene_agent_count(get(), &count));
        return count;
    }
    std::string agent_name(std::uint32_t agent) {
        char *name = nullptr;
        check(ens_scene_agent_name(get(), agent, &name));
        return take_string(name);
    }
    std::string active_states(std::uint32_t agent) {
        char *states = nullptr;
        check(ens_scene_active_states(get(), agent, &states));
        return take_string(states);
    }
};

// Serves the inspection protocol (ensemble attach, ensemble push, the editor) for a scene:
// call frame() once a frame and tick only when it says so.
class Inspector : public Owned<EnsInspector, ens_inspector_free> {
public:
    using Owned::Owned;
    // `token` empty: none (loopback only). `wait`: paused until a tool resumes the game.
    static Inspector bind(const std::string &address, const std::string &token = "", bool wait = false) {
        EnsInspector handle{};
        check(ens_inspector_bind(address.c_str(), token.empty() ? nullptr : token.c_str(), wait, &handle));
        return Inspector(handle);
    }
    // The address it listens on (the port chosen for port 0).
    std::string address() const {
        char *text = nullptr;
        check(ens_inspector_address(get(), &text));
        return take_string(text);
    }
    // Serves the tools; true: tick the scene this frame, false: a tool holds it paused.
    bool frame(Scene &scene) {
        EnsFlow flow = ENS_FLOW_TICK;
        check(ens_inspector_frame(get(), scene.get(), &flow));
        return flow == ENS_FLOW_TICK;
    }
};

} // namespace ens

#endif // ENSEMBLE_HPP
