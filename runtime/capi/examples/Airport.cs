// Host 1 in C#: runs a scene of a built program on the standard simulated world and prints its
// trace as JSON lines — what `ensemble run PROJECT --scene SCENE --trace json --seed SEED
// --ticks TICKS` prints, byte for byte (as examples/airport.c does).
//
//   mono airport.exe PROGRAM.ensb SCENE SEED TICKS
//
// Built with the declarations of include/Ensemble.cs:
//   mcs -out:airport.exe include/Ensemble.cs examples/Airport.cs
// and run with libensemble_capi.so where the loader finds it (LD_LIBRARY_PATH).
using System;
using System.IO;
using System.Runtime.InteropServices;

public static class Airport
{
    // Prints a failed call's message and exits.
    static void Check(Ensemble.Status status, string what)
    {
        if (status != Ensemble.Status.Ok)
        {
            Console.Error.WriteLine(what + " failed (" + (int)status + "): " + Ensemble.LastError());
            Environment.Exit(1);
        }
    }

    // Writes the events recorded since the last call, as the library gave them.
    static void PrintTrace(Stream stdout, Ensemble.Scene scene)
    {
        IntPtr lines;
        Check(Ensemble.ens_scene_take_trace_json(scene, out lines), "ens_scene_take_trace_json");
        var bytes = System.Text.Encoding.UTF8.GetBytes(Marshal.PtrToStringUTF8(lines));
        stdout.Write(bytes, 0, bytes.Length);
        Ensemble.ens_string_free(lines);
    }

    public static int Main(string[] args)
    {
        if (args.Length != 4)
        {
            Console.Error.WriteLine("usage: airport.exe PROGRAM.ensb SCENE SEED TICKS");
            return 2;
        }
        ulong seed = ulong.Parse(args[2]);
        ulong ticks = ulong.Parse(args[3]);
        Ensemble.Program program;
        Check(Ensemble.ens_program_load_file(args[0], out program), "ens_program_load_file");
        Ensemble.Scene scene;
        Check(Ensemble.ens_scene_start_simulated(program, args[1], seed, out scene), "ens_scene_start_simulated");
        // The scene holds the program: the handle can go now.
        Check(Ensemble.ens_program_free(program), "ens_program_free");
        // Bytes, not text: Console would translate line ends and encodings.
        using (var stdout = Console.OpenStandardOutput())
        {
            PrintTrace(stdout, scene); // tick 0: the agents enter their initial states
            for (ulong t = 0; t < ticks; t++)
            {
                Check(Ensemble.ens_scene_tick(scene), "ens_scene_tick");
                PrintTrace(stdout, scene);
            }
        }
        Check(Ensemble.ens_scene_free(scene), "ens_scene_free");
        return 0;
    }
}
