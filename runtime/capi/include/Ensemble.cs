// The C ABI's declarations for C# (P/Invoke): what docs/embedding.md section 11 shows, and what
// runtime/capi/tests/csharp_host.rs compiles with Mono's mcs and runs against the shared library.
// Kept in step with include/ensemble.h by hand; the test runs the airport through it.
using System;
using System.Runtime.InteropServices;

public static class Ensemble
{
    const string Lib = "ensemble_capi";

    public enum Status { Ok = 0, NullArgument, InvalidUtf8, NullHandle, InvalidHandle,
        StaleHandle, WrongHandleKind, Busy, Load, Scene, Reload, Snapshot, InvalidArgument,
        Unsupported, Panic, Network }
    public enum Flow { Tick = 0, Hold = 1 }
    public enum MoveEvent { Moving = 0, Arrived = 1, NoPath = 2, Failed = 3 }
    public enum ActionOutcome { Running = 0, Succeeded = 1, Failed = 2 }

    [StructLayout(LayoutKind.Sequential)] public struct Program { public ulong Id; }
    [StructLayout(LayoutKind.Sequential)] public struct Library { public ulong Id; }
    [StructLayout(LayoutKind.Sequential)] public struct Scene { public ulong Id; }
    [StructLayout(LayoutKind.Sequential)] public struct Inspector { public ulong Id; }

    [DllImport(Lib)] public static extern IntPtr ens_last_error_message();
    public static string LastError() => Marshal.PtrToStringUTF8(ens_last_error_message());

    [DllImport(Lib)] public static extern void ens_string_free(IntPtr text);
    [DllImport(Lib)] public static extern void ens_bytes_free(IntPtr bytes, UIntPtr len);

    [DllImport(Lib)] public static extern Status ens_program_load_file(
        [MarshalAs(UnmanagedType.LPUTF8Str)] string path, out Program program);
    [DllImport(Lib)] public static extern Status ens_program_load_bytes(
        byte[] bytes, UIntPtr len, [MarshalAs(UnmanagedType.LPUTF8Str)] string name,
        out Program program);
    [DllImport(Lib)] public static extern Status ens_program_free(Program program);

    [DllImport(Lib)] public static extern Status ens_library_new(out Library library);
    [DllImport(Lib)] public static extern Status ens_library_free(Library library);

    [DllImport(Lib)] public static extern Status ens_scene_start_simulated(Program program,
        [MarshalAs(UnmanagedType.LPUTF8Str)] string name, ulong seed, out Scene scene);
    [DllImport(Lib)] public static extern Status ens_scene_start(Program program,
        Library library, [MarshalAs(UnmanagedType.LPUTF8Str)] string name, ulong seed,
        ref WorldCallbacks world, out Scene scene);
    [DllImport(Lib)] public static extern Status ens_scene_tick(Scene scene);
    [DllImport(Lib)] public static extern Status ens_scene_take_trace_json(Scene scene,
        out IntPtr lines);
    [DllImport(Lib)] public static extern Status ens_scene_set_tracing(Scene scene,
        [MarshalAs(UnmanagedType.I1)] bool on);
    [DllImport(Lib)] public static extern Status ens_scene_send(Scene scene, uint to,
        uint from, [MarshalAs(UnmanagedType.LPUTF8Str)] string name);
    [DllImport(Lib)] public static extern Status ens_scene_agent_count(Scene scene, out uint count);
    [DllImport(Lib)] public static extern Status ens_scene_agent_name(Scene scene, uint agent,
        out IntPtr name);
    [DllImport(Lib)] public static extern Status ens_scene_active_states(Scene scene,
        uint agent, out IntPtr states);
    [DllImport(Lib)] public static extern Status ens_scene_reload(Scene scene,
        Program program, [MarshalAs(UnmanagedType.LPUTF8Str)] string reason);
    [DllImport(Lib)] public static extern Status ens_scene_save(Scene scene,
        out IntPtr bytes, out UIntPtr len);
    [DllImport(Lib)] public static extern Status ens_scene_restore_simulated(Program program,
        byte[] bytes, UIntPtr len, out Scene scene);
    [DllImport(Lib)] public static extern Status ens_scene_restore_report(Scene scene,
        out IntPtr report); // JSON lines: agents a patch added, removed, renamed
    [DllImport(Lib)] public static extern Status ens_scene_free(Scene scene);

    // Tools attach through the inspection protocol (section 6); token: null for none.
    [DllImport(Lib)] public static extern Status ens_inspector_bind(
        [MarshalAs(UnmanagedType.LPUTF8Str)] string address,
        [MarshalAs(UnmanagedType.LPUTF8Str)] string token,
        [MarshalAs(UnmanagedType.I1)] bool wait, out Inspector inspector);
    [DllImport(Lib)] public static extern Status ens_inspector_address(Inspector inspector,
        out IntPtr address);
    [DllImport(Lib)] public static extern Status ens_inspector_frame(Inspector inspector,
        Scene scene, out Flow flow);
    [DllImport(Lib)] public static extern Status ens_inspector_free(Inspector inspector);

    // The seam (EnsWorldCallbacks): one delegate per call, each given UserData first.
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    [return: MarshalAs(UnmanagedType.I1)]
    public delegate bool Position(IntPtr user, uint agent, [Out] double[] at /* 2 */);
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void Place(IntPtr user, uint agent, double x, double y);
    [StructLayout(LayoutKind.Sequential)]
    public struct Destination { public IntPtr Location; public double X, Y; } // Location: NULL for a point
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void MoveTo(IntPtr user, uint agent, ref Destination to, double now, double dt);
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate int FollowMove(IntPtr user, uint agent, double now, double dt, out IntPtr reason);
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void StopMove(IntPtr user, uint agent);
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void StartAction(IntPtr user, IntPtr request /* EnsActionRequest* */, double now, double dt);
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate int ActionOutcomeOf(IntPtr user, ulong id, double now, double dt);
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void CancelAction(IntPtr user, ulong id);
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate IntPtr Variable(IntPtr user, uint agent, IntPtr name); // keep the result alive
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void SetVariable(IntPtr user, uint agent, IntPtr name, IntPtr value);
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate IntPtr RemoveVariable(IntPtr user, uint agent, IntPtr name);
    // What `Say` is handed: Marshal.PtrToStructure<Line>(line); Key is what voice-over is found under.
    [StructLayout(LayoutKind.Sequential)]
    public struct Line { public IntPtr Text, Sentence; public uint Candidate; public IntPtr Key; }
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void Say(IntPtr user, uint agent, IntPtr line /* EnsLine* */, double now, double dt);
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    [return: MarshalAs(UnmanagedType.I1)]
    public delegate bool StillSpeaking(IntPtr user, uint agent, double now, double dt);

    // Fill each field with Marshal.GetFunctionPointerForDelegate(yourDelegate), in this order.
    [StructLayout(LayoutKind.Sequential)]
    public struct WorldCallbacks
    {
        public IntPtr UserData;
        public IntPtr Position, Place, MoveTo, FollowMove, StopMove, StartAction,
            ActionOutcome, CancelAction, Variable, SetVariable, RemoveVariable, Say,
            StillSpeaking;
    }
}
