package dev.arenascope.core.trace.file;

import java.nio.file.Path;

/**
 * One rank of a job: the file it comes from and the rank's name ({@link RankNames}).
 *
 * @param rank      the rank's name, unique in its job: {@code rank3}, a name an override pattern caught, or
 *                  the file name; a second file with the same name gets {@code #2}, a third {@code #3}
 * @param number    the rank's number when its name has one ({@code rank3}: 3), else -1
 * @param file      the file
 * @param duplicate whether another file of the job resolved to the same name first (so this one's name
 *                  carries {@code #N})
 */
public record JobMember(String rank, int number, Path file, boolean duplicate) {}
